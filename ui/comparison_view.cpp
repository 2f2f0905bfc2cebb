#include "mrwb_ui/comparison_view.hpp"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <iterator>
#include <cmath>
#include <exception>

#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/pipeline/gfactor_replica.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/pipeline/recon_coil_maps.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb_ui/pane_grid.hpp"

namespace mrwb::ui {

namespace {
const ReconMethod kMethods[] = {ReconMethod::Fft, ReconMethod::Grappa, ReconMethod::Gridding, ReconMethod::Cg,
                                ReconMethod::Sense, ReconMethod::Cs};
const char* const kMethodLabels[] = {"FFT", "GRAPPA", "Gridding", "CG", "SENSE", "CS"};
constexpr int kMethodCount = static_cast<int>(std::size(kMethods));
enum Column { ColMethod, ColBackend, ColTime, ColPsnr, ColError, ColNrmse, ColSsim, ColNote, ColCount };

std::pair<double, double> maxAbsRange(const std::vector<const std::vector<float>*>& maps) {
  double m = 0;
  for (const auto* v : maps)
    for (float x : *v)
      if (std::isfinite(x)) m = std::max(m, static_cast<double>(std::abs(x)));
  return {0.0, m};
}
}  // namespace

struct ComparisonView::Job {
  ReconComparison result;
  std::vector<std::complex<float>> maps;  // the coil maps the worker computed (none: known before, or not needed)
  int mapsGeneration = 0;
  bool models = false;  // a model comparison (compareModels), not methods on one raw data set
  double difference = 0;
  std::string eulerian, lagrangian;  // model and engine of each run, for the status line
};

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* runBar = new QHBoxLayout;
  for (int m = 0; m < kMethodCount; ++m) {
    auto* box = new QCheckBox(tr(kMethodLabels[m]), this);
    box->setChecked(m == 0);
    methodBoxes_.push_back(box);
    runBar->addWidget(box);
  }
  // CG parameters beside the method boxes (GRAPPA's come from the scenario's Reconstruction group).
  cgIterations_ = new QSpinBox(this);
  cgIterations_->setObjectName(QStringLiteral("cgIterations"));
  cgIterations_->setRange(1, 200);
  cgIterations_->setValue(NoncartParams{}.iterations);
  cgIterations_->setPrefix(tr("CG it. "));
  cgIterations_->setToolTip(tr("Conjugate-gradient iterations (1–200)"));
  cgLambda_ = new QDoubleSpinBox(this);
  cgLambda_->setObjectName(QStringLiteral("cgLambda"));
  cgLambda_->setRange(0, 1);
  cgLambda_->setDecimals(4);
  cgLambda_->setSingleStep(0.001);
  cgLambda_->setValue(NoncartParams{}.lambda);
  cgLambda_->setPrefix(tr("λ "));
  cgLambda_->setToolTip(tr("CG Tikhonov regularisation weight λ (0–1)"));
  cgRegularizer_ = new QComboBox(this);
  cgRegularizer_->setObjectName(QStringLiteral("cgRegularizer"));
  cgRegularizer_->addItem(tr("W = I"), QStringLiteral("identity"));
  cgRegularizer_->addItem(tr("W = ∇"), QStringLiteral("finite-difference"));
  cgRegularizer_->addItem(tr("W = ∇ cut at the truth's edges"), QStringLiteral("anatomical"));
  cgRegularizer_->setToolTip(
      tr("CG regulariser W in (F^H F + λ W^H W): identity, first-order differences, or differences left out across the "
         "edges of the truth image (Stone et al.'s anatomically constrained W; the truth plays an ideal reference "
         "scan: only where it jumps is used, not its values). Try λ ≈ 10 × samples / N⁴."));
  // Three rows that fit a 1280 px window: what to run, how (CG, maps, g-factor, status), how to show it.
  auto* optionsBar = new QHBoxLayout;
  optionsBar->addWidget(cgIterations_);
  optionsBar->addWidget(cgLambda_);
  optionsBar->addWidget(cgRegularizer_);
  backendBox_ = new QComboBox(this);
  for (const auto& entry : k_backend_names) backendBox_->addItem(QString::fromStdString(name_of(entry.first)));
  runBar->addWidget(new QLabel(tr("Backend:"), this));
  runBar->addWidget(backendBox_);
  runButton_ = new QPushButton(tr("Reconstruct && compare"), this);
  modelsButton_ = new QPushButton(tr("Compare models"), this);
  modelsButton_->setObjectName(QStringLiteral("compareModels"));
  modelsButton_->setToolTip(tr("Simulate and reconstruct the scenario with the Eulerian and the Lagrangian model; show "
                               "both images and their difference (the Lagrangian image is the reference)"));
  cancelButton_ = new QPushButton(tr("Cancel"), this);
  progress_ = new QProgressBar(this);
  progress_->setTextVisible(false);
  worker_ = new BackgroundJob(this);
  worker_->driveProgressBar(progress_);
  worker_->attachControls(runButton_, cancelButton_);
  connect(worker_, &BackgroundJob::started, modelsButton_, [this] { modelsButton_->setEnabled(false); });
  connect(worker_, &BackgroundJob::finished, modelsButton_, [this] { modelsButton_->setEnabled(true); });
  connect(worker_, &BackgroundJob::finished, this, &ComparisonView::onFinished);
  onRunBox_ = new QCheckBox(tr("On Run"), this);
  onRunBox_->setObjectName(QStringLiteral("compareOnRun"));
  onRunBox_->setChecked(true);
  onRunBox_->setToolTip(tr("The main Run simulates once, then reconstructs with every chosen method here"));
  optionsBar->addWidget(onRunBox_);
  gfactorBox_ = new QCheckBox(tr("g-factor"), this);
  gfactorBox_->setObjectName(QStringLiteral("compareGfactor"));
  gfactorBox_->setToolTip(tr("Also compute each method's g-factor map (noise amplification): SENSE on a regular comb "
                             "analytically (Pruessmann et al. 1999), every other method by pseudo-multiple replicas "
                             "(Robson et al. 2008); shown with \"g-factor\" in place of the error maps"));
  gReplicas_ = new QSpinBox(this);
  gReplicas_->setObjectName(QStringLiteral("gfactorReplicas"));
  gReplicas_->setRange(2, 10000);
  gReplicas_->setValue(32);
  gReplicas_->setPrefix(tr("replicas "));
  gReplicas_->setToolTip(tr("Pseudo-multiple replicas per method: the map's relative noise is about 1 / sqrt(2 · replicas)"));
  optionsBar->addWidget(gfactorBox_);
  optionsBar->addWidget(gReplicas_);
  runBar->addWidget(runButton_);
  runBar->addWidget(modelsButton_);
  runBar->addWidget(cancelButton_);
  runBar->addWidget(progress_, 1);
  layout->addLayout(runBar);
  layout->addLayout(optionsBar);

  auto* viewBar = new QHBoxLayout;
  colormapBox_ = new QComboBox(this);
  colormapBox_->addItems({tr("Grey"), tr("Hot"), tr("Viridis")});
  errorBox_ = new QComboBox(this);
  errorBox_->addItems({tr("Signed error"), tr("Absolute error"), tr("g-factor")});
  linkBox_ = new QCheckBox(tr("Link views"), this);
  linkBox_->setChecked(true);
  viewBar->addWidget(new QLabel(tr("Colormap:"), this));
  viewBar->addWidget(colormapBox_);
  viewBar->addWidget(errorBox_);
  viewBar->addWidget(linkBox_);
  viewBar->addStretch(1);
  auto* pngButton = new QPushButton(tr("Image → PNG…"), this);
  auto* gPngButton = new QPushButton(tr("g → PNG…"), this);
  auto* niiButton = new QPushButton(tr("Image → NIfTI…"), this);
  auto* h5Button = new QPushButton(tr("Raw → ISMRMRD…"), this);
  auto* cflButton = new QPushButton(tr("Raw → .cfl…"), this);
  for (auto* b : {pngButton, gPngButton, niiButton, h5Button, cflButton}) viewBar->addWidget(b);
  layout->addLayout(viewBar);
  status_ = new QLabel(tr("No raw data yet: run a simulation or open raw data."), this);
  status_->setObjectName(QStringLiteral("comparisonStatus"));
  status_->setMinimumWidth(0);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long message never widens the view
  referenceLabel_ = tr("Truth");
  referenceName_ = tr("truth");
  optionsBar->addSpacing(12);
  optionsBar->addWidget(status_, 1);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(3);

  // The panes take what the bars and the table leave; their grid is laid out anew on every resize.
  panes_ = new QWidget(this);
  panes_->setObjectName(QStringLiteral("comparisonPanes"));
  panes_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  panes_->installEventFilter(this);
  grid_ = new QGridLayout(panes_);
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(kPaneSpacingPx);
  truthPane_ = new ImageView(tr("Truth"), panes_);
  truthPane_->clearImage(tr("No truth"));
  linkView(truthPane_);
  table_ = new QTableWidget(0, ColCount, this);
  table_->setObjectName(QStringLiteral("comparisonTable"));
  table_->setHorizontalHeaderLabels(
      {tr("Method"), tr("Backend"), tr("Time [ms]"), tr("PSNR [dB]"), tr("Error [%]"), tr("NRMSE"), tr("SSIM"), tr("Note")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  layout->addWidget(panes_, 1);
  layout->addWidget(table_);
  rebuildPanes();
  fitTableHeight();

  connect(runButton_, &QPushButton::clicked, this, &ComparisonView::run);
  connect(modelsButton_, &QPushButton::clicked, this, &ComparisonView::compareModels);
  connect(colormapBox_, &QComboBox::currentIndexChanged, this,
          [this](int i) { setColormap(static_cast<ImageView::Colormap>(i)); });
  connect(errorBox_, &QComboBox::currentIndexChanged, this,
          [this](int i) { setErrorMode(static_cast<ErrorMode>(i)); });
  connect(linkBox_, &QCheckBox::toggled, this, &ComparisonView::setLinked);
  auto saveAs = [this](const QString& filter, bool (ComparisonView::*write)(const QString&)) {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export"), {}, filter);
    if (!path.isEmpty() && !(this->*write)(path)) status_->setText(lastError_);
  };
  connect(pngButton, &QPushButton::clicked, this, [saveAs] { saveAs(tr("PNG (*.png)"), &ComparisonView::exportImagePng); });
  connect(gPngButton, &QPushButton::clicked, this, [saveAs] { saveAs(tr("PNG (*.png)"), &ComparisonView::exportGfactorPng); });
  connect(niiButton, &QPushButton::clicked, this, [saveAs] { saveAs(tr("NIfTI (*.nii)"), &ComparisonView::exportImageNifti); });
  connect(h5Button, &QPushButton::clicked, this, [saveAs] { saveAs(tr("ISMRMRD (*.h5)"), &ComparisonView::exportRawIsmrmrd); });
  connect(cflButton, &QPushButton::clicked, this, [saveAs] { saveAs(tr("BART (*.cfl)"), &ComparisonView::exportRawCfl); });
}

ComparisonView::~ComparisonView() = default;  // worker_ (a child) cancels and waits

void ComparisonView::setScenario(const mrwb::Scenario& scenario) {
  // Every edit comes here: the user's choice of methods stays until the scenario's method changes.
  if (scenario.recon.method != scenarioMethod_) {
    scenarioMethod_ = scenario.recon.method;
    setMethods(scenario.recon.method == ReconMethod::Fft ? std::vector<ReconMethod>{ReconMethod::Fft}
                                                         : std::vector<ReconMethod>{ReconMethod::Fft, scenario.recon.method});
  }
  // The CG boxes follow the scenario's CG parameters when those change (the user may set others here).
  if (scenario.recon.cg_iterations != reconSpec_.cg_iterations || scenario.recon.cg_lambda != reconSpec_.cg_lambda)
    setCgParameters(scenario.recon.cg_iterations, scenario.recon.cg_lambda);
  reconSpec_ = scenario.recon;
  forgetMaps();
  setBackend(scenario.backend);
  scenario_ = scenario;
}

bool ComparisonView::compareOnRun() const { return onRunBox_->isChecked(); }
void ComparisonView::setCompareOnRun(bool on) { onRunBox_->setChecked(on); }

void ComparisonView::setCgRegularizer(const std::string& regularizer) {
  const int i = cgRegularizer_->findData(QString::fromStdString(regularizer));
  if (i >= 0) cgRegularizer_->setCurrentIndex(i);
}

void ComparisonView::setCgParameters(int iterations, double lambda) {
  cgIterations_->setValue(iterations);
  cgLambda_->setValue(lambda);
}

namespace {
// SENSE and CS, and the cg of a trajectory, take the scenario's coil maps (true or ESPIRiT, as the pipeline's;
// the cg's are empty when recon.maps is unset: it estimates its own).
bool takes_maps(const ComparisonRequest& r, const RawData& raw) {
  const bool cg_maps = r.options.method == ReconMethod::Cg && !raw.cartesian() && !raw.volume();
  return r.options.method == ReconMethod::Sense || r.options.method == ReconMethod::Cs || cg_maps;
}
bool any_takes_maps(const std::vector<ComparisonRequest>& requests, const RawData& raw) {
  return std::any_of(requests.begin(), requests.end(), [&](const ComparisonRequest& r) { return takes_maps(r, raw); });
}
void attach_maps(std::vector<ComparisonRequest>& requests, const RawData& raw, const std::vector<std::complex<float>>& maps) {
  for (auto& r : requests)
    if (takes_maps(r, raw)) (r.options.method == ReconMethod::Cg ? r.options.noncart.sensitivities : r.options.sense.maps) = maps;
}
}  // namespace

std::vector<ComparisonRequest> ComparisonView::requests() const {
  std::vector<ComparisonRequest> out = unmappedRequests();
  if (raw_ && any_takes_maps(out, *raw_)) {
    if (maps_.empty()) maps_ = recon_coil_maps(scenario_, *raw_);
    attach_maps(out, *raw_, maps_);
  }
  return out;
}

void ComparisonView::forgetMaps() {
  maps_.clear();
  ++mapsGeneration_;
}

std::vector<ComparisonRequest> ComparisonView::unmappedRequests() const {
  // The box lists the backend names, so its text always parses.
  const Backend backend = parse_backend(backendBox_->currentText().toStdString()).value_or(Backend::Auto);
  std::vector<ComparisonRequest> out = comparison_requests(methods(), backend);
  for (auto& r : out) {
    GrappaParams& g = r.options.grappa;
    g.kernel_pe = reconSpec_.grappa_kernel_pe;
    g.kernel_ro = reconSpec_.grappa_kernel_ro;
    g.lambda = reconSpec_.grappa_lambda;
    g.approach = reconSpec_.grappa_approach;
    g.eta = reconSpec_.grappa_eta;
    g.clip = reconSpec_.grappa_clip;
    r.options.noncart.iterations = cgIterations_->value();
    r.options.noncart.lambda = cgLambda_->value();
    r.options.noncart.regularizer = cgRegularizer_->currentData().toString().toStdString();
    if (r.options.method == ReconMethod::Cg && r.options.noncart.regularizer == "anatomical") {
      if (!truth_) throw InputError("CG W cut at the truth's edges: no truth image (simulate first, or choose another W)");
      r.options.noncart.prior = truth_->magnitude();
    }
    // CG-SENSE with the CG fields.
    r.options.sense.cg.iterations = cgIterations_->value();
    r.options.sense.cg.lambda = cgLambda_->value();
    r.options.cs.regularizer = reconSpec_.cs_regularizer;
    r.options.cs.lambda = reconSpec_.cs_lambda;
    r.options.cs.iterations = reconSpec_.cs_iterations;
    if (r.options.method == ReconMethod::Cs) r.label += r.options.cs.regularizer == "tv" ? " TV" : " L1-wavelet";
    if (r.options.method == ReconMethod::Cg) r.label += " " + std::to_string(cgIterations_->value()) + " it";
    if (r.options.method == ReconMethod::Cg && r.options.noncart.regularizer != "identity")
      r.label += r.options.noncart.regularizer == "anatomical" ? ", W anat." : ", W FD";
  }
  return out;
}

void ComparisonView::setRawData(const mrwb::RawData& raw, std::optional<mrwb::Image2D> truth) {
  raw_ = std::make_shared<const RawData>(raw);
  forgetMaps();
  truth_ = truth ? std::make_shared<const Image2D>(std::move(*truth)) : nullptr;
  truthVolume_.reset();
  status_->setText(tr("Raw data: %1 x %2, %3 coils%4%5")
                       .arg(raw.nx)
                       .arg(raw.ny)
                       .arg(raw.ncoils)
                       .arg(raw.cartesian() ? tr(", Cartesian R = %1").arg(raw.accel_R) : tr(", non-Cartesian"))
                       .arg(truth_ ? tr(", with truth") : QString()));
}

void ComparisonView::setVolumeData(const mrwb::RawData& raw, std::optional<mrwb::ImageVolume> truth) {
  raw_ = std::make_shared<const RawData>(raw);
  forgetMaps();
  truthVolume_ = truth ? std::make_shared<const ImageVolume>(std::move(*truth)) : nullptr;
  // The anatomical W's prior is the shown plane of the truth (CG runs on 2-D data only; it reports so here).
  const int plane = raw.slices > 1 ? raw.slices / 2 : raw.partitions / 2;
  truth_ = truthVolume_ && plane < truthVolume_->nz ? std::make_shared<const Image2D>(truthVolume_->slice(plane)) : nullptr;
  status_->setText(tr("Raw data: %1 x %2 x %3 %4, %5 coils, Cartesian R = %6%7; metrics over every voxel")
                       .arg(raw.nx)
                       .arg(raw.ny)
                       .arg(raw.slices * raw.partitions)
                       .arg(raw.slices > 1 ? tr("slices") : tr("partitions"))
                       .arg(raw.ncoils)
                       .arg(raw.accel_R)
                       .arg(truthVolume_ ? tr(", with truth") : QString()));
}

void ComparisonView::setMethods(const std::vector<ReconMethod>& methods) {
  for (int m = 0; m < kMethodCount; ++m)
    methodBoxes_[m]->setChecked(std::find(methods.begin(), methods.end(), kMethods[m]) != methods.end());
}

std::vector<ReconMethod> ComparisonView::methods() const {
  std::vector<ReconMethod> out;
  for (int m = 0; m < kMethodCount; ++m)
    if (methodBoxes_[m]->isChecked()) out.push_back(kMethods[m]);
  return out;
}

void ComparisonView::setBackend(Backend backend) {
  const int i = backendBox_->findText(QString::fromStdString(name_of(backend)));
  if (i >= 0) backendBox_->setCurrentIndex(i);
}

void ComparisonView::run() {
  if (worker_->busy() || !raw_) {
    if (!raw_) status_->setText(tr("No raw data to reconstruct"));
    return;
  }
  std::vector<ComparisonRequest> requests;
  try {
    requests = unmappedRequests();
  } catch (const std::exception& e) {
    status_->setText(QString::fromStdString(e.what()));
    return;
  }
  if (requests.empty()) {
    status_->setText(tr("Choose at least one method"));
    return;
  }
  auto job = std::make_shared<Job>();
  job->mapsGeneration = mapsGeneration_;
  job_ = job;
  const int replicas = gfactorBox_->isChecked() ? gReplicas_->value() : 0;
  // The coil maps (ESPIRiT's estimate: seconds on a large matrix) in the worker, once per data set.
  worker_->start(
      [job, raw = raw_, truth = truth_, truthVolume = truthVolume_, requests, replicas, scenario = scenario_,
       maps = maps_](const ProgressFn& progress, const CancelToken& cancel) mutable {
        if (any_takes_maps(requests, *raw)) {
          if (maps.empty()) {
            if (progress) progress(0, "coil maps");
            maps = job->maps = recon_coil_maps(scenario, *raw);
            cancel.throw_if_cancelled();
          }
          attach_maps(requests, *raw, maps);
        }
        // With g-factor maps the reconstructions take the first tenth of the bar, the replicas the rest.
        const double share = replicas > 0 ? 0.1 : 1.0;
        auto first = [&](double f, std::string_view s) {
          if (progress) progress(share * f, s);
        };
        job->result = raw->volume() ? compare_volume_reconstructions(*raw, truthVolume.get(), requests, first, cancel)
                                    : compare_reconstructions(*raw, truth.get(), requests, first, cancel);
        if (replicas > 0)
          add_gfactor_maps(job->result, *raw, requests, replicas,
                           [&](double f, std::string_view s) {
                             if (progress) progress(share + (1 - share) * f, s);
                           },
                           cancel);
      },
      QStringLiteral("mrwb-compare"));
  progress_->setValue(0);
  status_->setText(tr("Reconstructing with %1 method(s)…").arg(requests.size()));
}

void ComparisonView::compareModels() {
  if (worker_->busy()) return;
  auto job = std::make_shared<Job>();
  job->models = true;
  job_ = job;
  worker_->start(
      [job, scenario = scenario_](const ProgressFn& progress, const CancelToken& cancel) {
        ModelComparison m = compare_models(scenario, progress, cancel);
        job->result = std::move(m.comparison);
        job->difference = m.relative_rms_difference;
        job->eulerian = m.eulerian.model + " on " + m.eulerian.backend;
        job->lagrangian = m.lagrangian.model + " on " + m.lagrangian.backend;
      },
      QStringLiteral("mrwb-models"));
  progress_->setValue(0);
  status_->setText(tr("Simulating “%1” with the Eulerian and the Lagrangian model…").arg(QString::fromStdString(scenario_.name)));
}

void ComparisonView::cancel() {
  worker_->cancel();
}

QString ComparisonView::statusText() const { return status_->text(); }

void ComparisonView::onModelsFinished() {
  const Job& job = *job_;
  if (worker_->outcome() != BackgroundJob::Outcome::Done) {
    status_->setText(worker_->outcome() == BackgroundJob::Outcome::Cancelled
                         ? tr("Model comparison cancelled; the previous results are kept")
                         : tr("Model comparison failed: %1").arg(worker_->error()));
    emit modelComparisonFinished(false);
    return;
  }
  progress_->setValue(1000);
  showComparison(job.result, tr("Lagrangian (reference)"), tr("Lagrangian"));
  modelDifference_ = job.difference;
  status_->setText(tr("%1 vs %2: relative RMS difference %3 % (RMS(|E| − |L|) / RMS(|L|))")
                       .arg(QString::fromStdString(job.eulerian), QString::fromStdString(job.lagrangian))
                       .arg(100.0 * job.difference, 0, 'f', 2));
  emit modelComparisonFinished(true);
}

void ComparisonView::onFinished() {
  if (job_->models) return onModelsFinished();
  const Job& job = *job_;
  if (worker_->outcome() != BackgroundJob::Outcome::Done) {
    status_->setText(worker_->outcome() == BackgroundJob::Outcome::Cancelled
                         ? tr("Cancelled; the previous results are kept")
                         : worker_->error());
    emit comparisonFinished(false);
    return;
  }
  progress_->setValue(1000);
  if (!job.maps.empty() && job.mapsGeneration == mapsGeneration_) maps_ = job.maps;
  setComparison(job.result);
  int failed = 0;
  for (const auto& e : comparison_.entries) failed += !e.ok();
  status_->setText(failed ? tr("%1 of %2 methods failed (see the table)").arg(failed).arg(comparison_.entries.size())
                          : tr("%1 methods compared").arg(comparison_.entries.size()));
  emit comparisonFinished(true);
}

void ComparisonView::setComparison(const mrwb::ReconComparison& comparison) {
  showComparison(comparison, tr("Truth"), tr("truth"));
}

void ComparisonView::showComparison(const mrwb::ReconComparison& comparison, const QString& referenceLabel,
                                    const QString& referenceName) {
  modelDifference_.reset();
  referenceLabel_ = referenceLabel;
  referenceName_ = referenceName;
  comparison_ = comparison;
  rebuildPanes();
  showImages();
  fillTable();
}

ImageView* ComparisonView::imagePane(int i) const {
  return i >= 0 && i < paneCount() ? imagePanes_[i] : nullptr;
}

ImageView* ComparisonView::errorPane(int i) const {
  return i >= 0 && i < paneCount() ? errorPanes_[i] : nullptr;
}

ImageView* ComparisonView::gfactorPane(int i) const {
  return i >= 0 && i < paneCount() ? gfactorPanes_[i] : nullptr;
}

void ComparisonView::rebuildPanes() {
  const int n = static_cast<int>(comparison_.entries.size());
  if (paneCount() != n) placement_.clear();
  while (paneCount() > n) {
    delete imagePanes_.back();
    delete errorPanes_.back();
    delete gfactorPanes_.back();
    imagePanes_.pop_back();
    errorPanes_.pop_back();
    gfactorPanes_.pop_back();
  }
  while (paneCount() < n) {
    for (auto* panes : {&imagePanes_, &errorPanes_, &gfactorPanes_}) {
      auto* view = new ImageView({}, panes_);
      linkView(view);
      panes->push_back(view);
    }
  }
  if (selected_ >= n) selected_ = -1;
  layoutPanes();
}

bool ComparisonView::showsGfactorPanes() const {
  return errorMode_ != ErrorMode::Gfactor &&
         std::any_of(comparison_.entries.begin(), comparison_.entries.end(), [](const ComparisonEntry& e) { return !e.gfactor.empty(); });
}

// Every method's image, error map and (when computed) g-factor map side by side, in the grid that gives each
// image the most pixels. The truth joins them while every image keeps kReadableImagePx (a projector's
// room reads 300 px), or when the panes are below that even without it; the error maps show it anyway.
void ComparisonView::layoutPanes() {
  const int n = paneCount();
  const bool g = showsGfactorPanes();
  std::vector<ImageView*> shown;
  for (int i = 0; i < n; ++i) {
    shown.push_back(imagePanes_[i]);
    shown.push_back(errorPanes_[i]);
    if (g) shown.push_back(gfactorPanes_[i]);
  }
  const QSize area = panes_->size();
  const PaneGrid with = bestPaneGrid(static_cast<int>(shown.size()) + 1, area, kPaneSpacingPx);
  const PaneGrid without = bestPaneGrid(static_cast<int>(shown.size()), area, kPaneSpacingPx);
  truthShown_ = n == 0 || with.imagePx >= kReadableImagePx || without.imagePx < kReadableImagePx;
  if (truthShown_) shown.insert(shown.begin(), truthPane_);
  const PaneGrid grid = truthShown_ ? with : without;
  std::vector<std::pair<ImageView*, int>> placement;  // pane, cell in reading order
  for (std::size_t i = 0; i < shown.size(); ++i) placement.emplace_back(shown[i], static_cast<int>(i));
  if (placement == placement_ && grid.columns == placedColumns_) return;  // unchanged: views keep their zoom
  placement_ = placement;
  placedColumns_ = grid.columns;
  grid_->removeWidget(truthPane_);
  for (auto* panes : {&imagePanes_, &errorPanes_, &gfactorPanes_})
    for (ImageView* v : *panes) {
      grid_->removeWidget(v);
      v->hide();
    }
  truthPane_->setVisible(truthShown_);
  for (int r = 0; r < grid_->rowCount(); ++r) grid_->setRowStretch(r, 0);
  for (int c = 0; c < grid_->columnCount(); ++c) grid_->setColumnStretch(c, 0);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const int row = static_cast<int>(i) / grid.columns, col = static_cast<int>(i) % grid.columns;
    grid_->addWidget(shown[i], row, col);
    grid_->setRowStretch(row, 1);
    grid_->setColumnStretch(col, 1);
    shown[i]->show();
  }
}

void ComparisonView::showImages() {
  // One display range for the truth and every image, so intensities compare across panes.
  std::vector<const std::vector<float>*> mags;
  if (comparison_.has_truth) mags.push_back(&comparison_.truth_magnitude);
  for (const auto& e : comparison_.entries)
    if (e.ok()) mags.push_back(&e.magnitude);
  const auto magRange = maxAbsRange(mags);
  if (comparison_.has_truth)
    truthPane_->setImage(comparison_.truth_magnitude, comparison_.truth.nx, comparison_.truth.ny, false, referenceLabel_, magRange);
  else
    truthPane_->clearImage(tr("No truth"));
  truthPane_->setColormap(colormap_);
  for (int i = 0; i < paneCount(); ++i) {
    const ComparisonEntry& e = comparison_.entries[i];
    ImageView* image = imagePanes_[i];
    image->setColormap(colormap_);
    if (e.ok())
      image->setImage(e.magnitude, e.image.nx, e.image.ny, false, QString::fromStdString(e.label), magRange);
    else
      image->clearImage(tr("%1 failed:\n%2").arg(QString::fromStdString(e.label), QString::fromStdString(e.error)));
  }
  showErrorMaps();
}

// Signed (diverging map) or absolute (hot map with colorbar) errors, one scale for all methods.
void ComparisonView::showErrorMaps() {
  std::vector<const std::vector<float>*> errs;
  for (const auto& e : comparison_.entries)
    if (!e.error_map.empty()) errs.push_back(&e.error_map);
  const double errMax = std::max(maxAbsRange(errs).second, 1e-12);
  for (int i = 0; i < paneCount(); ++i) {
    const ComparisonEntry& e = comparison_.entries[i];
    const QString label = QString::fromStdString(e.label);
    ImageView* error = errorPanes_[i];
    if (!e.ok()) {
      error->clearImage(tr("No error map"));
    } else if (errorMode_ == ErrorMode::Gfactor) {
      showGfactorMap(error, e);
    } else if (e.error_map.empty()) {
      error->clearImage(comparison_.has_truth ? tr("Truth has another size") : tr("No truth"));
    } else if (errorMode_ == ErrorMode::Signed) {
      error->setColorbarVisible(false);
      error->setImage(e.error_map, e.image.nx, e.image.ny, true, tr("%1 − %2").arg(label, referenceName_), std::pair{-errMax, errMax});
    } else {
      std::vector<float> absErr(e.error_map.size());
      std::transform(e.error_map.begin(), e.error_map.end(), absErr.begin(), [](float v) { return std::abs(v); });
      error->setColormap(ImageView::Colormap::Hot);
      error->setColorbarVisible(true);
      error->setImage(absErr, e.image.nx, e.image.ny, false, tr("|%1 − %2|").arg(label, referenceName_), std::pair{0.0, errMax});
    }
    if (e.ok()) showGfactorMap(gfactorPanes_[i], e);
    else gfactorPanes_[i]->clearImage(tr("No g-factor map"));
  }
  layoutPanes();  // g-factor panes come and go with the maps and the error mode
}

void ComparisonView::showGfactorMap(ImageView* view, const ComparisonEntry& e) {
  if (e.gfactor.empty()) {
    view->clearImage(e.gfactor_source.empty() ? tr("No g-factor map: tick g-factor and run")
                                              : tr("No g-factor map: %1").arg(QString::fromStdString(e.gfactor_source)));
    return;
  }
  const float gmax = *std::max_element(e.gfactor.begin(), e.gfactor.end());
  view->setColormap(ImageView::Colormap::Hot);
  view->setColorbarVisible(true);
  view->setImage(e.gfactor, e.image.nx, e.image.ny, false,
                 tr("g %1 (%2)").arg(QString::fromStdString(e.label), QString::fromStdString(e.gfactor_source)),
                 std::pair{0.0, double(gmax)});
}

// Tall enough for every row up to six (then it scrolls), never more: the panes keep the rest.
void ComparisonView::fitTableHeight() {
  const int rows = std::clamp(table_->rowCount(), 2, 6);
  const int rowPx = table_->verticalHeader()->defaultSectionSize();
  int h = table_->horizontalHeader()->sizeHint().height() + rows * rowPx + 2 * table_->frameWidth();
  if (table_->horizontalScrollBar()->isVisible()) h += table_->horizontalScrollBar()->sizeHint().height();
  table_->setFixedHeight(h);
}

void ComparisonView::fillTable() {
  table_->setRowCount(static_cast<int>(comparison_.entries.size()));
  auto put = [this](int row, int col, const QString& text) { table_->setItem(row, col, new QTableWidgetItem(text)); };
  for (int r = 0; r < table_->rowCount(); ++r) {
    const ComparisonEntry& e = comparison_.entries[r];
    for (int c = 0; c < ColCount; ++c) put(r, c, QString());
    put(r, ColMethod, QString::fromStdString(e.label));
    put(r, ColBackend, QString::fromStdString(e.backend));
    if (!e.ok()) {
      put(r, ColNote, QString::fromStdString(e.error));
      continue;
    }
    put(r, ColTime, QString::number(e.seconds * 1e3, 'f', 2));
    if (e.has_metrics) {
      put(r, ColPsnr, QString::number(e.metrics.psnr_db, 'f', 2));
      put(r, ColError, QString::number(e.metrics.percent_error, 'f', 2));
      put(r, ColNrmse, QString::number(e.metrics.nrmse, 'f', 4));
      put(r, ColSsim, QString::number(e.metrics.ssim, 'f', 4));
      if (comparison_.planes > 1)
        put(r, ColNote, tr("over %1 planes (shown: plane %2)").arg(comparison_.planes).arg(comparison_.shown_plane));
    } else {
      put(r, ColNote, comparison_.has_truth ? tr("truth of another size") : tr("no truth"));
    }
    if (!e.gfactor.empty()) {  // mean and maximum where the map is reported (0: below its SNR floor)
      double sum = 0, gmax = 0;
      int n = 0;
      for (float g : e.gfactor)
        if (g > 0) sum += g, gmax = std::max(gmax, double(g)), ++n;
      const QString before = table_->item(r, ColNote)->text();
      put(r, ColNote, (before.isEmpty() ? QString() : before + "; ") + tr("g mean %1, max %2 (%3)")
                          .arg(n ? sum / n : 0.0, 0, 'f', 3)
                          .arg(gmax, 0, 'f', 3)
                          .arg(QString::fromStdString(e.gfactor_source)));
    }
  }
  table_->resizeColumnsToContents();
  fitTableHeight();
}

void ComparisonView::setColormap(ImageView::Colormap map) {
  colormap_ = map;
  if (colormapBox_->currentIndex() != static_cast<int>(map)) colormapBox_->setCurrentIndex(static_cast<int>(map));
  truthPane_->setColormap(map);
  for (ImageView* v : imagePanes_) v->setColormap(map);
}

void ComparisonView::setErrorMode(ErrorMode mode) {
  errorMode_ = mode;
  const int i = static_cast<int>(mode);
  if (errorBox_->currentIndex() != i) errorBox_->setCurrentIndex(i);
  showErrorMaps();
  // The new error maps keep the zoom and pan of the linked images.
  ImageView* lead = paneCount() > 0 ? imagePanes_[0] : nullptr;
  if (linked_ && lead && lead->hasImage())
    for (ImageView* v : errorPanes_)
      if (v->hasImage()) v->setViewState(lead->viewState(), false);
}

void ComparisonView::setLinked(bool linked) {
  linked_ = linked;
  if (linkBox_->isChecked() != linked) linkBox_->setChecked(linked);
}

// Zoom/pan propagate to every pane; window/level only within its group (magnitudes, or error maps),
// whose values share a scale.
void ComparisonView::linkView(ImageView* view) {
  view->installEventFilter(this);
  connect(view, &ImageView::cameraChanged, this, [this, view] {
    if (!linked_ || propagating_) return;
    propagating_ = true;
    const ImageView::ViewState s = view->viewState();
    std::vector<ImageView*> all = imagePanes_;
    all.insert(all.end(), errorPanes_.begin(), errorPanes_.end());
    all.insert(all.end(), gfactorPanes_.begin(), gfactorPanes_.end());
    all.push_back(truthPane_);
    for (ImageView* v : all)
      if (v != view && v->hasImage()) v->setViewState(s, false);
    propagating_ = false;
  });
  connect(view, &ImageView::windowLevelChanged, this, [this, view] {
    if (!linked_ || propagating_) return;
    propagating_ = true;
    const ImageView::ViewState s = view->viewState();
    const auto in = [view](const std::vector<ImageView*>& panes) { return std::find(panes.begin(), panes.end(), view) != panes.end(); };
    const bool isError = in(errorPanes_), isG = in(gfactorPanes_);
    std::vector<ImageView*> group = isError ? errorPanes_ : isG ? gfactorPanes_ : imagePanes_;
    if (!isError && !isG) group.push_back(truthPane_);
    for (ImageView* v : group)
      if (v != view && v->hasImage()) v->setViewState(s, true);
    propagating_ = false;
  });
}

bool ComparisonView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == panes_ && event->type() == QEvent::Resize) layoutPanes();
  if (event->type() == QEvent::MouseButtonPress) {
    if (watched == truthPane_) selectPane(-1);
    for (int i = 0; i < paneCount(); ++i)
      if (watched == imagePanes_[i] || watched == errorPanes_[i] || watched == gfactorPanes_[i]) selectPane(i);
  }
  return QWidget::eventFilter(watched, event);
}

void ComparisonView::selectPane(int pane) {
  selected_ = (pane >= 0 && pane < paneCount()) ? pane : -1;
  QString label;
  selectedImage(&label);
  status_->setText(tr("Selected for export: %1").arg(label));
  emit paneSelected(selected_);
}

const mrwb::Image2D* ComparisonView::selectedImage(QString* label) const {
  if (selected_ < 0) {
    if (label) *label = referenceLabel_;
    return comparison_.has_truth ? &comparison_.truth : nullptr;
  }
  const ComparisonEntry& e = comparison_.entries[selected_];
  if (label) *label = QString::fromStdString(e.label);
  return e.ok() ? &e.image : nullptr;
}

bool ComparisonView::fail(const QString& message) {
  lastError_ = message;
  status_->setText(message);
  return false;
}

void ComparisonView::setGfactorMaps(bool on, int replicas) {
  gfactorBox_->setChecked(on);
  gReplicas_->setValue(replicas);
}

bool ComparisonView::exportGfactorPng(const QString& path) {
  if (selected_ < 0 || selected_ >= paneCount()) return fail(tr("Select a method's pane to export its g-factor map"));
  const ComparisonEntry& e = comparison_.entries[selected_];
  if (e.gfactor.empty()) return fail(tr("%1: no g-factor map (tick g-factor and run)").arg(QString::fromStdString(e.label)));
  const float gmax = *std::max_element(e.gfactor.begin(), e.gfactor.end());
  try {  // grey 0 .. the map's maximum
    write_png_magnitude(path.toStdString(), e.gfactor, e.image.nx, e.image.ny, 0.0f, gmax);
  } catch (const std::exception& ex) {
    return fail(QString::fromStdString(ex.what()));
  }
  status_->setText(tr("Wrote %1 (g-factor of %2, 0 .. %3)").arg(path, QString::fromStdString(e.label)).arg(gmax, 0, 'f', 3));
  return true;
}

bool ComparisonView::exportImagePng(const QString& path) {
  QString label;
  const Image2D* image = selectedImage(&label);
  if (!image) return fail(tr("%1: no image to export").arg(label));
  const ImageView* view = selected_ < 0 ? truthPane_ : imagePanes_[selected_];
  try {
    write_png_window_level(path.toStdString(), image->magnitude(), image->nx, image->ny,
                           static_cast<float>(view->colorLevel()), static_cast<float>(view->colorWindow()));
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  status_->setText(tr("Wrote %1 (%2)").arg(path, label));
  return true;
}

bool ComparisonView::exportImageNifti(const QString& path) {
  QString label;
  const Image2D* image = selectedImage(&label);
  if (!image) return fail(tr("%1: no image to export").arg(label));
  try {
    write_nifti(path.toStdString(), *image);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  status_->setText(tr("Wrote %1 (%2)").arg(path, label));
  return true;
}

bool ComparisonView::exportRawIsmrmrd(const QString& path) {
  if (!raw_) return fail(tr("No raw data to export"));
  try {
    write_raw_ismrmrd(path.toStdString(), *raw_);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  status_->setText(tr("Wrote %1").arg(path));
  return true;
}

bool ComparisonView::exportRawCfl(const QString& path) {
  if (!raw_) return fail(tr("No raw data to export"));
  QString base = path;
  if (base.endsWith(".cfl") || base.endsWith(".hdr")) base.chop(4);
  try {
    write_raw_cfl(base.toStdString(), raw_->cartesian() ? std::string() : (base + "_traj").toStdString(), *raw_);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  status_->setText(tr("Wrote %1.cfl/.hdr").arg(base));
  return true;
}

}  // namespace mrwb::ui
