#include "run/solver_panel.hpp"

#include <QComboBox>
#include <QSignalBlocker>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>

#include "kms/backends.hpp"

namespace kms::ui {

namespace {

QString name_of(std::string_view name) { return QString::fromUtf8(name.data(), qsizetype(name.size())); }

template <typename Enum>
void select_data(QComboBox* box, Enum value) {
    const int index = box->findData(static_cast<int>(value));
    if (index >= 0) box->setCurrentIndex(index);
}

template <typename Enum>
Enum current(const QComboBox* box) {
    return static_cast<Enum>(box->currentData().toInt());
}

}  // namespace

SolverPanel::SolverPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);

    algorithm_ = new QComboBox(this);
    // The registered solvers (kms/algorithms.hpp), each with its one line of help, then auto.
    QString help;
    for (const AlgorithmInfo& info : registered_algorithms()) {
        algorithm_->addItem(name_of(info.algorithm.name()), name_of(info.algorithm.name()));
        algorithm_->setItemData(algorithm_->count() - 1, name_of(info.description), Qt::ToolTipRole);
        help += name_of(info.algorithm.name()) + QStringLiteral(": ") + name_of(info.description) + QLatin1Char('\n');
    }
    algorithm_->addItem(name_of(Algorithm::Auto.name()), name_of(Algorithm::Auto.name()));
    algorithm_->setToolTip(help + tr("All give Lloyd's result, the bounded ones with fewer distance evaluations; auto "
                                     "picks one for the data's size (on the GPU: the fastest of a few steps of each "
                                     "on the data)"));
    form->addRow(tr("&Algorithm"), algorithm_);

    // Every back end the engine knows, from the registry: unavailable ones greyed, with the reason.
    backend_ = new QComboBox(this);
    auto* backend_model = new QStandardItemModel(backend_);
    for (Backend backend : all_backends()) {
        const BackendEntry* entry = find_backend(backend);
        auto* item = new QStandardItem(entry ? QString::fromStdString(entry->label)
                                             : QString::fromUtf8(to_string(backend).data(), to_string(backend).size()));
        item->setData(static_cast<int>(backend), Qt::UserRole);
        const BackendAvailability availability = backend_availability(backend);
        if (!availability.available) {
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
            item->setToolTip(tr("Unavailable: %1").arg(QString::fromStdString(availability.reason)));
        }
        backend_model->appendRow(item);
    }
    backend_->setModel(backend_model);
    form->addRow(tr("&Back end"), backend_);

    variant_ = new QComboBox(this);
    variant_->addItem(tr("auto"), static_cast<int>(KernelVariant::Auto));
    variant_->addItem(tr("global memory"), static_cast<int>(KernelVariant::Global));
    variant_->addItem(tr("shared memory"), static_cast<int>(KernelVariant::Shared));
    variant_->setToolTip(tr("CUDA kernels; auto: shared memory for Lloyd with k >= 64, else global (the faster on the H100)"));
    form->addRow(tr("&Kernels"), variant_);

    threads_ = new QSpinBox(this);
    threads_->setRange(0, max_threads());
    threads_->setSpecialValueText(tr("auto"));
    form->addRow(tr("&Threads"), threads_);

    binding_ = new QComboBox(this);
    for (ThreadBinding b : {ThreadBinding::None, ThreadBinding::Compact, ThreadBinding::Spread})
        binding_->addItem(name_of(to_string(b)), static_cast<int>(b));
    binding_->setToolTip(tr("Where the OpenMP threads run: none = where the OS puts them; compact = each core's "
                            "hardware threads first; spread = one thread per physical core first"));
    form->addRow(tr("Placemen&t"), binding_);

    block_size_ = new QComboBox(this);
    block_size_->addItem(tr("auto"), 0);
    for (int size : {64, 128, 256, 512, 1024}) block_size_->addItem(QString::number(size), size);
    form->addRow(tr("Block si&ze"), block_size_);

    // A back end with devices: one, or the rows split over the first N stepped together
    // (the bits of one device's --devices run). Filled in update_enabled().
    devices_ = new QComboBox(this);
    devices_->setToolTip(tr("CUDA: several devices split the rows and step together; the centroids are "
                            "bitwise those of one device (the update sums in the CPU's fixed package tree)"));
    form->addRow(tr("De&vices"), devices_);

    precision_ = new QComboBox(this);
    precision_->addItem(tr("double (f64)"), static_cast<int>(Precision::F64));
    precision_->addItem(tr("float (f32)"), static_cast<int>(Precision::F32));
    form->addRow(tr("&Precision"), precision_);

    init_ = new QComboBox(this);
    for (InitMethod m : {InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus, InitMethod::KMeansParallel,
                         InitMethod::Random, InitMethod::Maximin})
        init_->addItem(name_of(to_string(m)), static_cast<int>(m));
    form->addRow(tr("&Init"), init_);

    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    form->addRow(tr("&Seed"), seed_);

    restarts_ = new QSpinBox(this);
    restarts_->setRange(1, 100);
    restarts_->setToolTip(tr("Runs this many initialisations (seeds S, S+1, ...) to the end and steps the one "
                             "with the lowest final inertia, as scikit-learn's n_init"));
    form->addRow(tr("&Restarts"), restarts_);

    k_ = new QSpinBox(this);
    k_->setRange(1, 1 << 20);
    form->addRow(tr("&k"), k_);

    max_iterations_ = new QSpinBox(this);
    max_iterations_->setRange(1, 1000000);
    form->addRow(tr("&Max iterations"), max_iterations_);

    tol_ = new QLineEdit(this);
    auto* validator = new QDoubleValidator(0.0, 1e6, 12, tol_);
    validator->setNotation(QDoubleValidator::ScientificNotation);
    validator->setLocale(QLocale::c());
    tol_->setValidator(validator);
    tol_->setToolTip(tr("Relative to the mean feature variance, as in scikit-learn"));
    form->addRow(tr("T&olerance"), tol_);

    empty_policy_ = new QComboBox(this);
    for (EmptyClusterPolicy p : {EmptyClusterPolicy::Keep, EmptyClusterPolicy::Farthest})
        empty_policy_->addItem(name_of(to_string(p)), static_cast<int>(p));
    empty_policy_->setToolTip(tr("keep: an empty cluster keeps its centroid; farthest: it moves to the farthest point"));
    form->addRow(tr("&Empty cluster"), empty_policy_);

    set_setup(RunSetup{});
    for (QComboBox* box : {algorithm_, backend_, variant_, binding_, block_size_, devices_, precision_, init_, empty_policy_})
        connect(box, &QComboBox::currentIndexChanged, this, &SolverPanel::emit_edited);
    for (QSpinBox* box : {threads_, seed_, restarts_, k_, max_iterations_})
        connect(box, &QSpinBox::valueChanged, this, &SolverPanel::emit_edited);
    connect(tol_, &QLineEdit::editingFinished, this, &SolverPanel::emit_edited);
}

RunSetup SolverPanel::setup() const {
    RunSetup setup;
    setup.config.algorithm = parse_algorithm(algorithm_->currentData().toString().toStdString()).value_or(Algorithm::Lloyd);
    setup.config.backend = static_cast<Backend>(backend_->currentData(Qt::UserRole).toInt());
    const BackendEntry* entry = find_backend(setup.config.backend);
    if (entry && !entry->variants.empty()) setup.config.variant = current<KernelVariant>(variant_);
    setup.config.threads = threads_->value();
    // Placement is the OpenMP back end's option (SolverConfig::validate refuses it elsewhere).
    setup.config.binding = setup.config.backend == Backend::OpenMP ? current<ThreadBinding>(binding_)
                                                                   : ThreadBinding::None;
    setup.config.cuda_block_size = block_size_->currentData().toInt();
    if (devices_->isEnabled())  // the first N devices; 1: one device, the back end's own update
        for (int device = 0, count = devices_->currentData().toInt(); count > 1 && device < count; ++device)
            setup.devices.push_back(device);
    setup.config.precision = current<Precision>(precision_);
    setup.config.max_iterations = max_iterations_->value();
    bool ok = false;
    const double tol = QLocale::c().toDouble(tol_->text(), &ok);
    setup.config.tol = ok && tol >= 0 ? tol : 1e-4;
    setup.config.empty_policy = current<EmptyClusterPolicy>(empty_policy_);
    setup.init.bounds = init_given_.bounds;
    setup.init.oversampling = init_given_.oversampling;
    setup.init.parallel_rounds = init_given_.parallel_rounds;
    setup.init.greedy_trials = init_given_.greedy_trials;
    setup.init.method = current<InitMethod>(init_);
    setup.init.seed = static_cast<std::uint64_t>(seed_->value());
    setup.n_init = restarts_->value();
    setup.k = static_cast<std::size_t>(k_->value());
    return setup;
}

void SolverPanel::set_setup(const RunSetup& setup) {
    updating_ = true;
    if (const int index = algorithm_->findData(name_of(setup.config.algorithm.name())); index >= 0)
        algorithm_->setCurrentIndex(index);
    for (int i = 0; i < backend_->count(); ++i)
        if (backend_->itemData(i, Qt::UserRole).toInt() == static_cast<int>(setup.config.backend))
            backend_->setCurrentIndex(i);
    select_data(variant_, setup.config.variant);
    threads_->setValue(setup.config.threads);
    select_data(binding_, setup.config.binding);
    const int block = block_size_->findData(setup.config.cuda_block_size);
    block_size_->setCurrentIndex(block >= 0 ? block : 0);
    select_data(precision_, setup.config.precision);
    select_data(init_, setup.init.method);
    init_given_.bounds = setup.init.bounds;
    init_given_.oversampling = setup.init.oversampling;
    init_given_.parallel_rounds = setup.init.parallel_rounds;
    init_given_.greedy_trials = setup.init.greedy_trials;
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(setup.init.seed, std::numeric_limits<int>::max())));
    restarts_->setValue(setup.n_init);
    k_->setValue(static_cast<int>(setup.k));
    max_iterations_->setValue(setup.config.max_iterations);
    tol_->setText(QLocale::c().toString(setup.config.tol, 'g', 6));
    select_data(empty_policy_, setup.config.empty_policy);
    update_enabled();
    const int group = devices_->findData(static_cast<int>(std::max<std::size_t>(1, setup.devices.size())));
    devices_->setCurrentIndex(group >= 0 ? group : 0);
    updating_ = false;
}

bool SolverPanel::backend_enabled(Backend backend) const {
    auto* model = static_cast<QStandardItemModel*>(backend_->model());
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->item(row)->data(Qt::UserRole).toInt() == static_cast<int>(backend))
            return model->item(row)->isEnabled();
    return false;
}

QString SolverPanel::backend_tooltip(Backend backend) const {
    auto* model = static_cast<QStandardItemModel*>(backend_->model());
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->item(row)->data(Qt::UserRole).toInt() == static_cast<int>(backend)) return model->item(row)->toolTip();
    return {};
}

void SolverPanel::update_enabled() {
    const BackendEntry* entry = find_backend(static_cast<Backend>(backend_->currentData(Qt::UserRole).toInt()));
    threads_->setEnabled(entry && entry->uses_threads);
    binding_->setEnabled(entry && entry->backend == Backend::OpenMP);
    block_size_->setEnabled(entry && entry->uses_block_size);
    variant_->setEnabled(entry && !entry->variants.empty());
    // Devices: 1..count of this back end's (none visible: the control stays off).
    const int count = entry && entry->device_count ? entry->device_count() : 0;
    if (devices_->count() != std::max(count, 1)) {
        const QSignalBlocker blocker(devices_);
        const int chosen = devices_->currentData().toInt();
        devices_->clear();
        devices_->addItem(tr("one"), 1);
        for (int n = 2; n <= count; ++n) devices_->addItem(tr("%1 (0-%2)").arg(n).arg(n - 1), n);
        const int index = devices_->findData(chosen);
        devices_->setCurrentIndex(index >= 0 ? index : 0);
    }
    devices_->setEnabled(count > 1);
}

void SolverPanel::emit_edited() {
    if (updating_) return;
    update_enabled();
    emit setupEdited(setup());
}

}  // namespace kms::ui
