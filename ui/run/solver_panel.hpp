#pragma once
// The solver settings form: algorithm, back end (from the registry; unavailable
// ones greyed with the reason), CUDA kernels, block size and devices, threads, precision,
// init method, seed and restarts, k, max iterations, tol, empty-cluster policy. Emits setupEdited on every change.
#include <QWidget>

#include "run/run_types.hpp"

class QComboBox;
class QSpinBox;
class QLineEdit;

namespace kms::ui {

class SolverPanel : public QWidget {
    Q_OBJECT
public:
    explicit SolverPanel(QWidget* parent = nullptr);

    RunSetup setup() const;
    // Shows `setup` without emitting setupEdited.
    void set_setup(const RunSetup& setup);
    // Whether back end `backend` can be chosen (false: greyed, tooltip = reason).
    bool backend_enabled(Backend backend) const;
    QString backend_tooltip(Backend backend) const;

signals:
    void setupEdited(kms::ui::RunSetup setup);

private:
    void update_enabled();
    void emit_edited();

    QComboBox* algorithm_ = nullptr;
    QComboBox* backend_ = nullptr;
    QComboBox* variant_ = nullptr;
    QSpinBox* threads_ = nullptr;
    QComboBox* binding_ = nullptr;  // --bind: OpenMP thread placement
    QComboBox* block_size_ = nullptr;
    QComboBox* devices_ = nullptr;  // CUDA: one device, or the first N as a device group
    QComboBox* precision_ = nullptr;
    QComboBox* init_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* restarts_ = nullptr;
    QSpinBox* k_ = nullptr;
    QSpinBox* max_iterations_ = nullptr;
    QLineEdit* tol_ = nullptr;
    QComboBox* empty_policy_ = nullptr;
    bool updating_ = false;
    // The seeding options the panel shows no control for (k-means‖'s oversampling and
    // rounds, --init-bounds, greedy trials): kept from set_setup() for setup().
    kms::InitOptions init_given_;
};

}  // namespace kms::ui
