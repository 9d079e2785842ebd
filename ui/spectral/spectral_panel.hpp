#pragma once
// Controls and results of the spectral pipeline: k (or auto), representatives,
// neighbours, sigma; Run / Cancel; which stage the view shows; the eigenvalues,
// eigengap, sigma, phase times and the ARI against plain k-means.
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace kms::ui {

class SpectralPipeline;

class SpectralPanel : public QWidget {
    Q_OBJECT
public:
    SpectralPanel(SpectralPipeline& pipeline, QWidget* parent = nullptr);

    // The values as the pipeline takes them (k 0 = auto, representatives 0 = min(n, 1000),
    // neighbours 0 = full graph, sigma 0 = median heuristic); for scripts and tests.
    void set_values(int clusters, int representatives, int neighbours, double sigma);
    void run();
    QString results_text() const;

private:
    void refresh();

    SpectralPipeline& pipeline_;
    QSpinBox* clusters_ = nullptr;
    QSpinBox* representatives_ = nullptr;
    QSpinBox* neighbours_ = nullptr;
    QDoubleSpinBox* sigma_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QComboBox* display_ = nullptr;
    QLabel* results_ = nullptr;
};

}  // namespace kms::ui
