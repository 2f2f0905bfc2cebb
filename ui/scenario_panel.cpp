#include "mrwb_ui/scenario_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "mrwb/backend_registry.hpp"
#include "mrwb/tissue.hpp"

namespace mrwb::ui {

namespace {

// scenario.hpp documents these two phantom presets; core has no list function for them yet.
const QStringList kPhantomPresets = {QStringLiteral("straight_vessel"), QStringLiteral("uniform_disc")};

QString q(const std::string& s) { return QString::fromStdString(s); }

QFormLayout* makeForm(QGroupBox* box) {
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  form->setHorizontalSpacing(10);
  form->setVerticalSpacing(6);
  return form;
}

}  // namespace

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->setSpacing(10);

  // --- scenario --------------------------------------------------------------------------------
  auto* scenarioBox = new QGroupBox(tr("Scenario"), this);
  auto* sform = makeForm(scenarioBox);
  preset_ = new QComboBox(scenarioBox);
  preset_->addItem(tr("Load preset…"));
  for (const auto& n : mrwb::scenario_preset_names()) preset_->addItem(q(n), q(n));
  preset_->setToolTip(tr("Replace the whole scenario with a shipped preset"));
  connect(preset_, &QComboBox::activated, this, [this](int index) {
    if (index <= 0) return;
    const QString name = preset_->itemData(index).toString();
    preset_->setCurrentIndex(0);
    emit presetRequested(name);
  });
  sform->addRow(tr("Preset"), preset_);
  name_ = new QLineEdit(scenarioBox);
  connect(name_, &QLineEdit::editingFinished, this,
          [this] { edit([this](Scenario& s) { s.name = name_->text().toStdString(); }); });
  sform->addRow(tr("Name"), name_);
  layout->addWidget(scenarioBox);

  // --- phantom ---------------------------------------------------------------------------------
  auto* phantomBox = new QGroupBox(tr("Phantom"), this);
  auto* pform = makeForm(phantomBox);
  phantom_ = new QComboBox(phantomBox);
  for (const auto& p : kPhantomPresets) phantom_->addItem(p, p);
  connect(phantom_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.phantom.preset = phantom_->currentData().toString().toStdString(); });
  });
  pform->addRow(tr("Phantom"), phantom_);
  cellsPerVoxel_ = addInt(pform, tr("Cells per voxel"), 1, 64, 1,
                          tr("Isochromats per image voxel along each axis (partial-volume detail)"));
  connect(cellsPerVoxel_, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](Scenario& s) { s.phantom.cells_per_voxel = v; }); });
  discRadius_ = addDouble(pform, tr("Disc radius"), 0, 1000, 1, 1, tr(" mm"), tr("Radius of the tissue disc"));
  connect(discRadius_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.phantom.disc_radius_m = v * 1e-3; }); });

  backgroundTissue_ = new QComboBox(phantomBox);
  vesselTissue_ = new QComboBox(phantomBox);
  for (const auto& t : mrwb::tissue_names_1p5T()) {
    backgroundTissue_->addItem(q(t), q(t));
    vesselTissue_->addItem(q(t), q(t));
  }
  connect(backgroundTissue_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.phantom.background_tissue = backgroundTissue_->currentData().toString().toStdString(); });
  });
  connect(vesselTissue_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.phantom.vessel_tissue = vesselTissue_->currentData().toString().toStdString(); });
  });
  pform->addRow(tr("Background tissue"), backgroundTissue_);
  pform->addRow(tr("Vessel tissue"), vesselTissue_);
  vesselRadius_ = addDouble(pform, tr("Vessel radius"), 0, 1000, 2, 0.5, tr(" mm"), {});
  connect(vesselRadius_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.phantom.vessel_radius_m = v * 1e-3; }); });
  vesselAngle_ = addDouble(pform, tr("Vessel angle"), -360, 360, 1, 5, tr(" °"), tr("Angle of the vessel axis to x"));
  connect(vesselAngle_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.phantom.vessel_angle_deg = v; }); });
  vesselOffset_ = addDouble(pform, tr("Vessel offset"), -1000, 1000, 2, 1, tr(" mm"),
                            tr("Signed distance of the vessel axis from the centre"));
  connect(vesselOffset_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.phantom.vessel_offset_m = v * 1e-3; }); });
  layout->addWidget(phantomBox);

  // --- sequence (shown in ms / mm; the scenario stays in SI) ------------------------------------
  auto* seqBox = new QGroupBox(tr("Sequence and coils"), this);
  auto* qform = makeForm(seqBox);
  sequenceType_ = new QComboBox(seqBox);
  sequenceType_->addItem(tr("Spoiled gradient echo"), QStringLiteral("spoiled_gre"));
  sequenceType_->addItem(tr("Spin echo (90°–180°)"), QStringLiteral("spin_echo"));
  connect(sequenceType_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.sequence.type = sequenceType_->currentData().toString().toStdString(); });
  });
  qform->addRow(tr("Sequence"), sequenceType_);
  tr_ = addDouble(qform, tr("TR"), 0.001, 100000, 3, 0.5, tr(" ms"), tr("Repetition time"));
  connect(tr_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.sequence.TR_s = v * 1e-3; }); });
  te_ = addDouble(qform, tr("TE"), 0.001, 100000, 3, 0.5, tr(" ms"), tr("Echo time (k = 0 sample)"));
  connect(te_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.sequence.TE_s = v * 1e-3; }); });
  flip_ = addDouble(qform, tr("Flip angle"), 0, 180, 1, 1, tr(" °"), {});
  connect(flip_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.sequence.flip_angle_deg = v; }); });
  fov_ = addDouble(qform, tr("FOV"), 1, 5000, 1, 8, tr(" mm"), tr("Square field of view"));
  connect(fov_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.sequence.fov_m = v * 1e-3; }); });
  matrix_ = addInt(qform, tr("Matrix"), 2, 4096, 16, tr("Square image matrix (readout × phase encode)"));
  connect(matrix_, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](Scenario& s) { s.sequence.matrix = v; }); });
  bandwidth_ = addDouble(qform, tr("Bandwidth"), 1, 1e6, 0, 50, tr(" Hz/px"), {});
  connect(bandwidth_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { edit([v](Scenario& s) { s.sequence.bandwidth_Hz_per_pixel = v; }); });
  dummyScans_ = addInt(qform, tr("Dummy scans"), 0, 1000000, 50, tr("TRs played before the first line (steady state)"));
  connect(dummyScans_, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](Scenario& s) { s.sequence.dummy_scans = v; }); });
  coils_ = addInt(qform, tr("Receive coils"), 1, 128, 1, tr("Loop coils around the FOV (1: one uniform coil)"));
  connect(coils_, &QSpinBox::valueChanged, this, [this](int v) { edit([v](Scenario& s) { s.coils.count = v; }); });
  acceleration_ = addInt(qform, tr("Acceleration R"), 1, 8, 1, tr("Acquire every R-th phase-encode line"));
  connect(acceleration_, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](Scenario& s) { s.sequence.acceleration = v; }); });
  acsLines_ = addInt(qform, tr("ACS lines"), 0, 4096, 2, tr("Fully sampled calibration lines at the k-space centre"));
  connect(acsLines_, &QSpinBox::valueChanged, this, [this](int v) { edit([v](Scenario& s) { s.sequence.acs_lines = v; }); });
  layout->addWidget(seqBox);

  // --- reconstruction ----------------------------------------------------------------------------
  auto* reconBox = new QGroupBox(tr("Reconstruction"), this);
  auto* rform = makeForm(reconBox);
  reconMethod_ = new QComboBox(reconBox);
  reconMethod_->addItem(tr("FFT (zero-filled when undersampled)"), QStringLiteral("fft"));
  reconMethod_->addItem(tr("GRAPPA"), QStringLiteral("grappa"));
  connect(reconMethod_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.recon.method = reconMethod_->currentData().toString().toStdString(); });
  });
  rform->addRow(tr("Method"), reconMethod_);
  approach_ = new QComboBox(reconBox);
  approach_->addItem(tr("Improved (2-D kernel)"), QStringLiteral("improved"));
  approach_->addItem(tr("Basic (blocks, segments)"), QStringLiteral("basic"));
  connect(approach_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.recon.grappa_approach = approach_->currentData().toString().toStdString(); });
  });
  rform->addRow(tr("GRAPPA calibration"), approach_);
  kernelPe_ = addInt(rform, tr("GRAPPA kernel PE"), 2, 16, 1, tr("K_PE: source lines of the 2-D kernel"));
  connect(kernelPe_, &QSpinBox::valueChanged, this, [this](int v) { edit([v](Scenario& s) { s.recon.grappa_kernel_pe = v; }); });
  kernelRo_ = addInt(rform, tr("GRAPPA kernel RO"), 1, 31, 2, tr("K_RO: readout columns of the 2-D kernel"));
  connect(kernelRo_, &QSpinBox::valueChanged, this, [this](int v) { edit([v](Scenario& s) { s.recon.grappa_kernel_ro = v; }); });
  lambda_ = addDouble(rform, tr("GRAPPA λ (chi)"), 0, 1, 6, 1e-4, {}, tr("Tikhonov: lambda = chi · trace(A A^H) / rows"));
  connect(lambda_, &QDoubleSpinBox::valueChanged, this, [this](double v) { edit([v](Scenario& s) { s.recon.grappa_lambda = v; }); });
  eta_ = addDouble(rform, tr("GRAPPA η"), 0, 4, 2, 0.1, {}, tr("Basic: per-position normalisation Psi = p^(-eta/2)"));
  connect(eta_, &QDoubleSpinBox::valueChanged, this, [this](double v) { edit([v](Scenario& s) { s.recon.grappa_eta = v; }); });
  clip_ = addDouble(rform, tr("GRAPPA clip κ"), 0, 0.95, 2, 0.01, {}, tr("Improved: fraction of strongest equations dropped"));
  connect(clip_, &QDoubleSpinBox::valueChanged, this, [this](double v) { edit([v](Scenario& s) { s.recon.grappa_clip = v; }); });
  layout->addWidget(reconBox);

  // --- backend ---------------------------------------------------------------------------------
  auto* backendBox = new QGroupBox(tr("Compute"), this);
  auto* bform = makeForm(backendBox);
  backend_ = new QComboBox(backendBox);
  backend_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  backend_->setMinimumContentsLength(12);
  connect(backend_, &QComboBox::activated, this, [this](int) {
    edit([this](Scenario& s) { s.backend = backend_->currentData().toString().toStdString(); });
  });
  bform->addRow(tr("Backend"), backend_);
  memory_ = new QLabel(backendBox);
  memory_->setToolTip(tr("Memory the phantom and the simulator state need"));
  bform->addRow(tr("Memory"), memory_);
  layout->addWidget(backendBox);

  validation_ = new QLabel(this);
  validation_->setWordWrap(true);
  validation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  validation_->setVisible(false);
  layout->addWidget(validation_);
  layout->addStretch(1);

  fillBackends();
}

QDoubleSpinBox* ScenarioPanel::addDouble(QFormLayout* form, const QString& label, double min, double max,
                                         int decimals, double step, const QString& suffix, const QString& tip) {
  auto* box = new QDoubleSpinBox(this);
  box->setRange(min, max);
  box->setDecimals(decimals);
  box->setSingleStep(step);
  box->setSuffix(suffix);
  box->setToolTip(tip);
  box->setKeyboardTracking(false);  // apply on Enter / focus-out, not on every keystroke
  box->setAlignment(Qt::AlignRight);
  form->addRow(label, box);
  return box;
}

QSpinBox* ScenarioPanel::addInt(QFormLayout* form, const QString& label, int min, int max, int step,
                                const QString& tip) {
  auto* box = new QSpinBox(this);
  box->setRange(min, max);
  box->setSingleStep(step);
  box->setToolTip(tip);
  box->setKeyboardTracking(false);
  box->setAlignment(Qt::AlignRight);
  form->addRow(label, box);
  return box;
}

template <typename F>
void ScenarioPanel::edit(F&& f) {
  if (filling_) return;
  f(scenario_);
  emit scenarioEdited(scenario_);
}

void ScenarioPanel::fillBackends() {
  backend_->clear();
  backend_->addItem(tr("auto (CUDA if present, else CPU)"), QStringLiteral("auto"));
  auto* model = qobject_cast<QStandardItemModel*>(backend_->model());
  for (const auto& b : mrwb::list_backends()) {
    QString text = q(b.name);
    if (!b.device.empty()) text += QStringLiteral(" — ") + q(b.device);
    if (!b.available) text += tr(" (not available)");
    backend_->addItem(text, q(b.name));
    backend_->setItemData(backend_->count() - 1, text, Qt::ToolTipRole);
    // Unavailable backends are listed (the user should see CUDA exists) but cannot be chosen.
    if (!b.available && model) model->item(backend_->count() - 1)->setEnabled(false);
  }
}

void ScenarioPanel::selectData(QComboBox* combo, const QString& value) {
  int i = combo->findData(value);
  if (i < 0) {  // a value from a file that the list does not know: show it; core will judge it
    combo->addItem(value, value);
    i = combo->count() - 1;
  }
  combo->setCurrentIndex(i);
}

void ScenarioPanel::setScenario(const mrwb::Scenario& s) {
  scenario_ = s;
  filling_ = true;
  name_->setText(q(s.name));
  selectData(phantom_, q(s.phantom.preset));
  cellsPerVoxel_->setValue(s.phantom.cells_per_voxel);
  discRadius_->setValue(s.phantom.disc_radius_m * 1e3);
  selectData(backgroundTissue_, q(s.phantom.background_tissue));
  selectData(vesselTissue_, q(s.phantom.vessel_tissue));
  vesselRadius_->setValue(s.phantom.vessel_radius_m * 1e3);
  vesselAngle_->setValue(s.phantom.vessel_angle_deg);
  vesselOffset_->setValue(s.phantom.vessel_offset_m * 1e3);
  selectData(sequenceType_, q(s.sequence.type));
  coils_->setValue(s.coils.count);
  acceleration_->setValue(s.sequence.acceleration);
  acsLines_->setValue(s.sequence.acs_lines);
  selectData(reconMethod_, q(s.recon.method));
  kernelPe_->setValue(s.recon.grappa_kernel_pe);
  kernelRo_->setValue(s.recon.grappa_kernel_ro);
  lambda_->setValue(s.recon.grappa_lambda);
  selectData(approach_, q(s.recon.grappa_approach));
  eta_->setValue(s.recon.grappa_eta);
  clip_->setValue(s.recon.grappa_clip);
  tr_->setValue(s.sequence.TR_s * 1e3);
  te_->setValue(s.sequence.TE_s * 1e3);
  flip_->setValue(s.sequence.flip_angle_deg);
  fov_->setValue(s.sequence.fov_m * 1e3);
  matrix_->setValue(s.sequence.matrix);
  bandwidth_->setValue(s.sequence.bandwidth_Hz_per_pixel);
  dummyScans_->setValue(s.sequence.dummy_scans);
  selectData(backend_, q(s.backend));
  filling_ = false;
}

void ScenarioPanel::setValidationMessage(const QString& message) {
  validation_->setVisible(!message.isEmpty());
  validation_->setText(message);
  validation_->setStyleSheet(QStringLiteral(
      "QLabel { color: #ffb4a9; background: rgba(200, 40, 30, 60); border: 1px solid #c0392b;"
      " border-radius: 4px; padding: 6px; }"));
}

void ScenarioPanel::setMemoryEstimate(const QString& text) { memory_->setText(text); }

}  // namespace mrwb::ui
