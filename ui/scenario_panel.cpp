#include "mrwb_ui/scenario_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "mrwb/phantom/tissue.hpp"

namespace mrwb::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QFormLayout* makeForm(QGroupBox* box) {
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  form->setHorizontalSpacing(10);
  form->setVerticalSpacing(6);
  return form;
}

QGroupBox* addGroup(QVBoxLayout* layout, const QString& title, QWidget* parent) {
  auto* box = new QGroupBox(title, parent);
  layout->addWidget(box);
  return box;
}

const QString kMessageStyle = QStringLiteral(
    "QLabel { color: #ffb4a9; background: rgba(200, 40, 30, 60); border: 1px solid #c0392b;"
    " border-radius: 4px; padding: 4px; }");
const QString kInvalidEditorStyle = QStringLiteral("border: 1px solid #e74c3c;");

}  // namespace

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->setSpacing(10);

  // --- about: the scenario's description (the teaching explanation) -------------------------------
  descriptionBox_ = addGroup(layout, tr("About this scenario"), this);
  auto* dlayout = new QVBoxLayout(descriptionBox_);
  description_ = new QLabel(descriptionBox_);
  description_->setObjectName(QStringLiteral("scenarioDescription"));
  description_->setWordWrap(true);
  description_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  dlayout->addWidget(description_);

  // --- scenario --------------------------------------------------------------------------------
  auto* sform = makeForm(addGroup(layout, tr("Scenario"), this));
  preset_ = new QComboBox(this);
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
  name_ = new QLineEdit(this);
  connect(name_, &QLineEdit::editingFinished, this,
          [this] { edit(QStringLiteral("name"), [this](Scenario& s) { s.name = name_->text().toStdString(); }); });
  addField(sform, QStringLiteral("name"), tr("Name"), name_);

  // --- phantom ---------------------------------------------------------------------------------
  auto* pform = makeForm(addGroup(layout, tr("Phantom"), this));
  phantom_ = addCombo(pform, QStringLiteral("phantom.preset"), tr("Phantom"),
                      {{tr("straight vessel"), QStringLiteral("straight_vessel")},
                       {tr("uniform disc"), QStringLiteral("uniform_disc")},
                       {tr("vessel tree (from the file's tree)"), QStringLiteral("vessel_tree")}},
                      tr("The object: a straight vessel, a plain disc, or a generated vessel tree"),
                      [](Scenario& s, const std::string& v) { s.phantom.preset = v; });
  cellsPerVoxel_ = addInt(pform, QStringLiteral("phantom.cells_per_voxel"), tr("Cells per voxel"), 1, 64, 1,
                          tr("Isochromats per image voxel along each axis (partial-volume detail)"),
                          [](Scenario& s, int v) { s.phantom.cells_per_voxel = v; });
  discRadius_ = addDouble(pform, QStringLiteral("phantom.disc_radius_m"), tr("Disc radius"), 0, 1000, 1, 1, tr(" mm"),
                          tr("Radius of the tissue disc"), [](Scenario& s, double v) { s.phantom.disc_radius_m = v * 1e-3; });
  QList<QPair<QString, QString>> tissues;
  for (const auto& t : mrwb::tissue_names_1p5T()) tissues.append({q(t), q(t)});
  backgroundTissue_ = addCombo(pform, QStringLiteral("phantom.background_tissue"), tr("Background tissue"), tissues,
                               tr("Relaxation times at 1.5 T"),
                               [](Scenario& s, const std::string& v) { s.phantom.background_tissue = v; });
  vesselTissue_ = addCombo(pform, QStringLiteral("phantom.vessel_tissue"), tr("Vessel tissue"), tissues,
                           tr("Relaxation times at 1.5 T"),
                           [](Scenario& s, const std::string& v) { s.phantom.vessel_tissue = v; });
  vesselRadius_ = addDouble(pform, QStringLiteral("phantom.vessel_radius_m"), tr("Vessel radius"), 0, 1000, 2, 0.5,
                            tr(" mm"), {}, [](Scenario& s, double v) { s.phantom.vessel_radius_m = v * 1e-3; });
  vesselAngle_ = addDouble(pform, QStringLiteral("phantom.vessel_angle_deg"), tr("Vessel angle"), -360, 360, 1, 5,
                           tr(" °"), tr("Angle of the vessel axis to x"),
                           [](Scenario& s, double v) { s.phantom.vessel_angle_deg = v; });
  vesselOffset_ = addDouble(pform, QStringLiteral("phantom.vessel_offset_m"), tr("Vessel offset"), -1000, 1000, 2, 1,
                            tr(" mm"), tr("Signed distance of the vessel axis from the centre"),
                            [](Scenario& s, double v) { s.phantom.vessel_offset_m = v * 1e-3; });

  // --- flow ------------------------------------------------------------------------------------
  auto* fform = makeForm(addGroup(layout, tr("Flow"), this));
  flowEnabled_ = new QCheckBox(tr("Blood flows"), this);
  flowEnabled_->setToolTip(tr("Give the simulator the velocity field of the vessel (its \"flow\" section)"));
  connect(flowEnabled_, &QCheckBox::toggled, this,
          [this](bool on) {
            setFlowEditorsEnabled(on);
            edit(QStringLiteral("flow"), [on](Scenario& s) { s.flow.enabled = on; });
          });
  addField(fform, QStringLiteral("flow"), tr("Flow"), flowEnabled_);
  flowSolver_ = addCombo(fform, QStringLiteral("flow.solver"), tr("Solver"),
                         {{tr("Poiseuille (analytic)"), QStringLiteral("poiseuille")},
                          {tr("Lattice Boltzmann"), QStringLiteral("lbm")}},
                         {}, [](Scenario& s, const std::string& v) { s.flow.solver = v; });
  flowInlet_ = addDouble(fform, QStringLiteral("flow.inlet_flow_m3_per_s"), tr("Inflow"), 0, 10000, 3, 0.5,
                         tr(" mL/s"), tr("Mean volumetric inflow at the root"),
                         [](Scenario& s, double v) { s.flow.inlet_flow_m3_per_s = v * 1e-6; });
  flowWaveform_ = addCombo(fform, QStringLiteral("flow.waveform"), tr("Waveform"),
                           {{tr("constant"), QStringLiteral("constant")},
                            {tr("sinusoid"), QStringLiteral("sinusoid")},
                            {tr("cardiac"), QStringLiteral("cardiac")}},
                           tr("Quasi-steady: Q(t) scales the field"),
                           [](Scenario& s, const std::string& v) { s.flow.waveform = v; });
  flowPeriod_ = addDouble(fform, QStringLiteral("flow.period_s"), tr("Period"), 0, 100, 3, 0.1, tr(" s"),
                          tr("Waveform period (cardiac cycle)"), [](Scenario& s, double v) { s.flow.period_s = v; });
  flowPulsatility_ = addDouble(fform, QStringLiteral("flow.pulsatility"), tr("Pulsatility"), 0, 10, 2, 0.1, {},
                               tr("(peak − mean) / mean of the waveform"),
                               [](Scenario& s, double v) { s.flow.pulsatility = v; });
  flowTime_ = addDouble(fform, QStringLiteral("flow.time_s"), tr("Time in cycle"), 0, 10000, 3, 0.05, tr(" s"),
                        tr("Instant of the waveform at which the field is taken"),
                        [](Scenario& s, double v) { s.flow.time_s = v; });
  flowViscosity_ = addDouble(fform, QStringLiteral("flow.viscosity_Pa_s"), tr("Viscosity"), 0, 100, 2, 0.1,
                             tr(" mPa·s"), tr("Dynamic viscosity of blood"),
                             [](Scenario& s, double v) { s.flow.viscosity_Pa_s = v * 1e-3; });
  flowDensity_ = addDouble(fform, QStringLiteral("flow.density_kg_per_m3"), tr("Density"), 0, 100000, 0, 10,
                           tr(" kg/m³"), {}, [](Scenario& s, double v) { s.flow.density_kg_per_m3 = v; });

  // --- simulation model (the items hold core's names) ---------------------------------------------
  auto* mform = makeForm(addGroup(layout, tr("Simulation"), this));
  model_ = addCombo(mform, QStringLiteral("simulation.model"), tr("Model"),
                    {{tr("Eulerian (magnetization on fixed cells)"), q(name_of(SimulationModel::Eulerian))},
                     {tr("Lagrangian (spins carried by the flow)"), q(name_of(SimulationModel::Lagrangian))}},
                    tr("How moving blood is simulated. Lagrangian spin tracking is the reference for flow (slower); "
                       "on a still phantom both give the same image"),
                    [](Scenario& s, const std::string& v) {
                      if (const auto m = parse_simulation_model(v)) s.simulation.model = *m;
                    });
  flowTransport_ = addCombo(mform, QStringLiteral("simulation.flow_transport"), tr("Flow transport"),
                            {{tr("Gradient frame (keeps the gradients' phase)"), q(name_of(FlowTransport::GradientFrame))},
                             {tr("Gradient frame, second order (sharper inflow fronts)"),
                              q(name_of(FlowTransport::GradientFrameLimited))},
                             {tr("Donor cell (Jurczuk et al. 2016, diffuses it)"), q(name_of(FlowTransport::DonorCell))}},
                            tr("Eulerian model: how magnetization moves between cells (docs/flow_transport.md)"),
                            [](Scenario& s, const std::string& v) {
                              if (const auto t = parse_flow_transport(v)) s.simulation.flow_transport = *t;
                            });
  spinsPerAxis_ = addInt(mform, QStringLiteral("simulation.spins_per_axis"), tr("Spins per axis"), 1,
                         k_max_spins_per_axis, 1,
                         tr("Lagrangian model: spins per fluid cell along each axis (its square per cell in 2-D, cube in "
                            "3-D); more spins, less sampling noise, longer runs"),
                         [](Scenario& s, int v) { s.simulation.spins_per_axis = v; });
  // The Lagrangian model has no cells to transport between; the Eulerian one no spins.
  connect(model_, &QComboBox::currentIndexChanged, this, [this] {
    const bool eulerian = model_->currentData().toString() == q(name_of(SimulationModel::Eulerian));
    flowTransport_->setEnabled(eulerian);
    spinsPerAxis_->setEnabled(!eulerian);
  });

  // --- sequence (shown in ms / mm; the scenario stays in SI) ------------------------------------
  auto* qform = makeForm(addGroup(layout, tr("Sequence"), this));
  sequenceType_ = addCombo(qform, QStringLiteral("sequence.type"), tr("Sequence"),
                           {{tr("Spoiled gradient echo"), q(name_of(SequenceType::SpoiledGre))},
                            {tr("Spin echo (90°–180°)"), q(name_of(SequenceType::SpinEcho))}},
                           {}, [](Scenario& s, const std::string& v) {
                             if (const auto t = parse_sequence_type(v)) s.sequence.type = *t;  // the items hold names
                           });
  tr_ = addDouble(qform, QStringLiteral("sequence.TR_s"), tr("TR"), 0.001, 100000, 3, 0.5, tr(" ms"),
                  tr("Repetition time"), [](Scenario& s, double v) { s.sequence.TR_s = v * 1e-3; });
  te_ = addDouble(qform, QStringLiteral("sequence.TE_s"), tr("TE"), 0.001, 100000, 3, 0.5, tr(" ms"),
                  tr("Echo time (k = 0 sample)"), [](Scenario& s, double v) { s.sequence.TE_s = v * 1e-3; });
  flip_ = addDouble(qform, QStringLiteral("sequence.flip_angle_deg"), tr("Flip angle"), 0, 180, 1, 1, tr(" °"), {},
                    [](Scenario& s, double v) { s.sequence.flip_angle_deg = v; });
  fov_ = addDouble(qform, QStringLiteral("sequence.fov_m"), tr("FOV"), 1, 5000, 1, 8, tr(" mm"),
                   tr("Square field of view"), [](Scenario& s, double v) { s.sequence.fov_m = v * 1e-3; });
  matrix_ = addInt(qform, QStringLiteral("sequence.matrix"), tr("Matrix"), 2, 4096, 16,
                   tr("Square image matrix (readout × phase encode)"), [](Scenario& s, int v) { s.sequence.matrix = v; });
  bandwidth_ = addDouble(qform, QStringLiteral("sequence.bandwidth_Hz_per_pixel"), tr("Bandwidth"), 1, 1e6, 0, 50,
                         tr(" Hz/px"), {}, [](Scenario& s, double v) { s.sequence.bandwidth_Hz_per_pixel = v; });
  maxGrad_ = addDouble(qform, QStringLiteral("sequence.max_grad_mT_per_m"), tr("Max gradient"), 0, 100, 1, 1, tr(" mT/m"),
                       tr("Gradient amplitude limit the sequence is designed within (0: 32 mT/m; spiral 40)"),
                       [](Scenario& s, double v) { s.sequence.max_grad_mT_per_m = v; });
  maxSlew_ = addDouble(qform, QStringLiteral("sequence.max_slew_T_per_m_per_s"), tr("Max slew rate"), 0, 300, 0, 10,
                       tr(" T/m/s"), tr("Slew-rate limit the sequence is designed within (0: 130 T/m/s; spiral 150)"),
                       [](Scenario& s, double v) { s.sequence.max_slew_T_per_m_per_s = v; });
  partialFourier_ = addDouble(qform, QStringLiteral("sequence.partial_fourier"), tr("Partial Fourier"), 0.5, 1, 3, 0.0625,
                              {}, tr("Fraction of the phase-encode lines acquired (Cartesian; the rest zero-filled)"),
                              [](Scenario& s, double v) { s.sequence.partial_fourier = v; });
  dummyScans_ = addInt(qform, QStringLiteral("sequence.dummy_scans"), tr("Dummy scans"), 0, 1000000, 50,
                       tr("TRs played before the first line (steady state)"),
                       [](Scenario& s, int v) { s.sequence.dummy_scans = v; });
  acceleration_ = addInt(qform, QStringLiteral("sequence.acceleration"), tr("Acceleration R"), 1, 8, 1,
                         tr("Acquire every R-th phase-encode line"),
                         [](Scenario& s, int v) { s.sequence.acceleration = v; });
  acsLines_ = addInt(qform, QStringLiteral("sequence.acs_lines"), tr("ACS lines"), 0, 4096, 2,
                     tr("Fully sampled calibration lines at the k-space centre"),
                     [](Scenario& s, int v) { s.sequence.acs_lines = v; });
  undersampling_ = addCombo(qform, QStringLiteral("sequence.undersampling"), tr("Undersampling"),
                            {{tr("Regular (every R-th line)"), QStringLiteral("regular")},
                             {tr("Random, variable density"), QStringLiteral("random")},
                             {tr("Poisson-disc, variable density"), QStringLiteral("poisson_disc")}},
                            tr("Which phase-encode lines are acquired: the regular comb GRAPPA and SENSE unfold, or "
                               "matrix / R lines drawn denser at the centre, the incoherent sampling compressed sensing "
                               "needs (the ACS lines among them)"),
                            [](Scenario& s, const std::string& v) { s.sequence.undersampling = v; });
  undersamplingSeed_ = addInt(qform, QStringLiteral("sequence.undersampling_seed"), tr("Pattern seed"), 0, 1000000, 1,
                              tr("Seed of the random / Poisson-disc pattern (the same seed, the same lines)"),
                              [](Scenario& s, int v) { s.sequence.undersampling_seed = v; });
  // How the simulator plays the sequence's blocks (sequence_fidelity.hpp); the items hold core's names.
  rfFidelity_ = addCombo(qform, QStringLiteral("sequence.fidelity.rf"), tr("RF model"),
                         {{tr("Auto (hard GE / SE / PC, shaped bSSFP / TOF / slices)"), q(name_of(RfFidelity::Auto))},
                          {tr("Hard pulse at the centre"), q(name_of(RfFidelity::Hard))},
                          {tr("Shaped, 100 µs steps"), q(name_of(RfFidelity::Shaped))}},
                         tr("How RF pulses are played"), [](Scenario& s, const std::string& v) {
                           if (const auto f = enum_from_name(k_rf_fidelity_names, v)) s.sequence.fidelity.rf = *f;
                         });
  gradientFidelity_ = addCombo(qform, QStringLiteral("sequence.fidelity.gradients"), tr("Gradients"),
                               {{tr("Auto (waveform for phase contrast)"), q(name_of(GradientFidelity::Auto))},
                                {tr("Moments between RF / ADC"), q(name_of(GradientFidelity::Moments))},
                                {tr("Waveform, 20 µs pieces"), q(name_of(GradientFidelity::Waveform))}},
                               tr("Moving spins see when a gradient acts only with its waveform"),
                               [](Scenario& s, const std::string& v) {
                                 if (const auto f = enum_from_name(k_gradient_fidelity_names, v)) s.sequence.fidelity.gradients = *f;
                               });
  spoilingFidelity_ = addCombo(qform, QStringLiteral("sequence.fidelity.spoiling"), tr("Spoiling"),
                               {{tr("Ideal (Mxy = 0 before each excitation)"), q(name_of(SpoilingFidelity::Ideal))},
                                {tr("Spoiler gradients and RF spoiling"), q(name_of(SpoilingFidelity::Gradients))},
                                {tr("As played, dephasing within each cell (CPU, still phantoms)"),
                                 q(name_of(SpoilingFidelity::States))}},
                               tr("One magnetization per cell cannot dephase within itself: ideal spoiling stands in "
                                  "for the spoilers, or the cells carry configuration states (CPU engine)"),
                               [](Scenario& s, const std::string& v) {
                                 if (const auto f = enum_from_name(k_spoiling_fidelity_names, v)) s.sequence.fidelity.spoiling = *f;
                               });

  // --- coils -----------------------------------------------------------------------------------
  auto* cform = makeForm(addGroup(layout, tr("Receive coils"), this));
  coils_ = addInt(cform, QStringLiteral("coils.count"), tr("Coils"), 1, 128, 1,
                  tr("Receive channels (1: one uniform coil)"), [](Scenario& s, int v) { s.coils.count = v; });
  coilArrangement_ = addCombo(cform, QStringLiteral("coils.arrangement"), tr("Arrangement"),
                              {{tr("loops around the FOV (Biot–Savart)"), QStringLiteral("loops")},
                               {tr("uniform"), QStringLiteral("uniform")}},
                              {}, [](Scenario& s, const std::string& v) { s.coils.arrangement = v; });

  // --- reconstruction ----------------------------------------------------------------------------
  auto* rform = makeForm(addGroup(layout, tr("Reconstruction"), this));
  reconMethod_ = addCombo(rform, QStringLiteral("recon.method"), tr("Method"),
                          {{tr("FFT (zero-filled when undersampled)"), q(name_of(ReconMethod::Fft))},
                           {tr("GRAPPA"), q(name_of(ReconMethod::Grappa))},
                           {tr("SENSE (CG-SENSE off the regular comb)"), q(name_of(ReconMethod::Sense))},
                           {tr("Compressed sensing"), q(name_of(ReconMethod::Cs))}},
                          {}, [](Scenario& s, const std::string& v) {
                            if (const auto m = parse_recon_method(v)) s.recon.method = *m;  // the items hold names
                          });
  approach_ = addCombo(rform, QStringLiteral("recon.grappa_approach"), tr("GRAPPA calibration"),
                       {{tr("Improved (2-D kernel)"), QStringLiteral("improved")},
                        {tr("Basic (blocks, segments)"), QStringLiteral("basic")}},
                       {}, [](Scenario& s, const std::string& v) { s.recon.grappa_approach = v; });
  kernelPe_ = addInt(rform, QStringLiteral("recon.grappa_kernel_pe"), tr("GRAPPA kernel PE"), 2, 16, 1,
                     tr("K_PE: source lines of the 2-D kernel"), [](Scenario& s, int v) { s.recon.grappa_kernel_pe = v; });
  kernelRo_ = addInt(rform, QStringLiteral("recon.grappa_kernel_ro"), tr("GRAPPA kernel RO"), 1, 31, 2,
                     tr("K_RO: readout columns of the 2-D kernel"), [](Scenario& s, int v) { s.recon.grappa_kernel_ro = v; });
  lambda_ = addDouble(rform, QStringLiteral("recon.grappa_lambda"), tr("GRAPPA λ (chi)"), 0, 1, 6, 1e-4, {},
                      tr("Tikhonov: lambda = chi · trace(A A^H) / rows"),
                      [](Scenario& s, double v) { s.recon.grappa_lambda = v; });
  eta_ = addDouble(rform, QStringLiteral("recon.grappa_eta"), tr("GRAPPA η"), 0, 4, 2, 0.1, {},
                   tr("Basic: per-position normalisation Psi = p^(-eta/2)"),
                   [](Scenario& s, double v) { s.recon.grappa_eta = v; });
  clip_ = addDouble(rform, QStringLiteral("recon.grappa_clip"), tr("GRAPPA clip κ"), 0, 0.95, 2, 0.01, {},
                    tr("Improved: fraction of strongest equations dropped"),
                    [](Scenario& s, double v) { s.recon.grappa_clip = v; });
  cgIterations_ = addInt(rform, QStringLiteral("recon.cg_iterations"), tr("CG iterations"), 1, 10000, 1,
                         tr("Conjugate-gradient iterations of the cg method (non-Cartesian) and of CG-SENSE"),
                         [](Scenario& s, int v) { s.recon.cg_iterations = v; });
  cgLambda_ = addDouble(rform, QStringLiteral("recon.cg_lambda"), tr("CG λ"), 0, 1, 6, 1e-4, {},
                        tr("Tikhonov weight λ of the cg method: (F^H F + λ I) ρ = F^H d"),
                        [](Scenario& s, double v) { s.recon.cg_lambda = v; });
  coilMaps_ = addCombo(rform, QStringLiteral("recon.maps"), tr("Coil maps"),
                       {{tr("Default (SENSE, CS: true; CG: its own estimate)"), QStringLiteral("")},
                        {tr("True (the simulator's coils)"), QStringLiteral("true")},
                        {tr("ESPIRiT (from the ACS lines or the k-space centre)"), QStringLiteral("espirit")}},
                       tr("The coil sensitivities SENSE, compressed sensing and the non-Cartesian CG reconstruct with"),
                       [](Scenario& s, const std::string& v) {
                         s.recon.maps = v.empty() ? std::nullopt : std::optional<std::string>(v);
                       });
  csRegularizer_ = addCombo(rform, QStringLiteral("recon.cs_regularizer"), tr("CS regulariser"),
                            {{tr("L1 wavelet (FISTA)"), QStringLiteral("l1-wavelet")},
                             {tr("Total variation (ADMM)"), QStringLiteral("tv")}},
                            tr("Compressed sensing: min ½‖E x − d‖² + λ R(x)"),
                            [](Scenario& s, const std::string& v) { s.recon.cs_regularizer = v; });
  csLambda_ = addDouble(rform, QStringLiteral("recon.cs_lambda"), tr("CS λ"), 0, 1, 6, 1e-4, {},
                        tr("Weight λ of the sparsity term (on the unitary data scale; BART's pics -r with -w 1)"),
                        [](Scenario& s, double v) { s.recon.cs_lambda = v; });
  csIterations_ = addInt(rform, QStringLiteral("recon.cs_iterations"), tr("CS iterations"), 1, 10000, 10,
                         tr("L1-wavelet: FISTA iterations; TV: CG steps over all ADMM x-updates (as BART's pics -i), "
                            "ADMM may stop sooner by its residual test"),
                         [](Scenario& s, int v) { s.recon.cs_iterations = v; });

  validation_ = new QLabel(this);
  validation_->setObjectName(QStringLiteral("validationMessage"));
  validation_->setWordWrap(true);
  validation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  validation_->setStyleSheet(kMessageStyle);
  validation_->setVisible(false);
  layout->addWidget(validation_);
  layout->addStretch(1);
}

void ScenarioPanel::addField(QFormLayout* form, const QString& key, const QString& label, QWidget* editor) {
  auto* cell = new QWidget(this);
  auto* v = new QVBoxLayout(cell);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  v->addWidget(editor);
  auto* message = new QLabel(cell);
  message->setWordWrap(true);
  message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message->setStyleSheet(kMessageStyle);
  message->setVisible(false);
  v->addWidget(message);
  editor->setObjectName(key);  // tests and style sheets find editors by their scenario key
  form->addRow(label, cell);
  fields_.insert(key, editor);
  fieldMessages_.insert(key, message);
}

QDoubleSpinBox* ScenarioPanel::addDouble(QFormLayout* form, const QString& key, const QString& label, double min,
                                         double max, int decimals, double step, const QString& suffix,
                                         const QString& tip, std::function<void(Scenario&, double)> set) {
  auto* box = new QDoubleSpinBox(this);
  box->setRange(min, max);
  box->setDecimals(decimals);
  box->setSingleStep(step);
  box->setSuffix(suffix);
  box->setToolTip(tip);
  box->setKeyboardTracking(false);  // apply on Enter / focus-out, not on every keystroke
  box->setAlignment(Qt::AlignRight);
  connect(box, &QDoubleSpinBox::valueChanged, this,
          [this, key, set](double v) { edit(key, [&](Scenario& s) { set(s, v); }); });
  addField(form, key, label, box);
  return box;
}

QSpinBox* ScenarioPanel::addInt(QFormLayout* form, const QString& key, const QString& label, int min, int max,
                                int step, const QString& tip, std::function<void(Scenario&, int)> set) {
  auto* box = new QSpinBox(this);
  box->setRange(min, max);
  box->setSingleStep(step);
  box->setToolTip(tip);
  box->setKeyboardTracking(false);
  box->setAlignment(Qt::AlignRight);
  connect(box, &QSpinBox::valueChanged, this, [this, key, set](int v) { edit(key, [&](Scenario& s) { set(s, v); }); });
  addField(form, key, label, box);
  return box;
}

QComboBox* ScenarioPanel::addCombo(QFormLayout* form, const QString& key, const QString& label,
                                   const QList<QPair<QString, QString>>& items, const QString& tip,
                                   std::function<void(Scenario&, const std::string&)> set) {
  auto* combo = new QComboBox(this);
  for (const auto& [text, value] : items) combo->addItem(text, value);
  // Long item texts must not widen the whole form; the popup still shows them in full.
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->setMinimumContentsLength(12);
  combo->setToolTip(tip);
  connect(combo, &QComboBox::currentIndexChanged, this, [this, key, combo, set](int) {
    const std::string v = combo->currentData().toString().toStdString();
    edit(key, [&](Scenario& s) { set(s, v); });
  });
  addField(form, key, label, combo);
  return combo;
}

template <typename F>
void ScenarioPanel::edit(const QString& field, F&& f) {
  if (filling_) return;
  f(scenario_);
  emit scenarioEdited(scenario_, field);
}

void ScenarioPanel::setFlowEditorsEnabled(bool on) {
  for (QWidget* w : std::initializer_list<QWidget*>{flowSolver_, flowInlet_, flowWaveform_, flowPeriod_, flowPulsatility_,
                                                    flowTime_, flowViscosity_, flowDensity_})
    w->setEnabled(on);
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
  description_->setText(q(s.description));
  descriptionBox_->setVisible(!s.description.empty());
  name_->setText(q(s.name));
  selectData(phantom_, q(s.phantom.preset));
  cellsPerVoxel_->setValue(s.phantom.cells_per_voxel);
  discRadius_->setValue(s.phantom.disc_radius_m * 1e3);
  selectData(backgroundTissue_, q(s.phantom.background_tissue));
  selectData(vesselTissue_, q(s.phantom.vessel_tissue));
  vesselRadius_->setValue(s.phantom.vessel_radius_m * 1e3);
  vesselAngle_->setValue(s.phantom.vessel_angle_deg);
  vesselOffset_->setValue(s.phantom.vessel_offset_m * 1e3);
  flowEnabled_->setChecked(s.flow.enabled);
  selectData(flowSolver_, q(s.flow.solver));
  flowInlet_->setValue(s.flow.inlet_flow_m3_per_s * 1e6);
  selectData(flowWaveform_, q(s.flow.waveform));
  flowPeriod_->setValue(s.flow.period_s);
  flowPulsatility_->setValue(s.flow.pulsatility);
  flowTime_->setValue(s.flow.time_s);
  flowViscosity_->setValue(s.flow.viscosity_Pa_s * 1e3);
  flowDensity_->setValue(s.flow.density_kg_per_m3);
  setFlowEditorsEnabled(s.flow.enabled);
  selectData(model_, q(name_of(s.simulation.model)));
  selectData(flowTransport_, q(name_of(s.simulation.flow_transport)));
  flowTransport_->setEnabled(s.simulation.model == SimulationModel::Eulerian);
  spinsPerAxis_->setValue(s.simulation.spins_per_axis);
  spinsPerAxis_->setEnabled(s.simulation.model == SimulationModel::Lagrangian);
  selectData(sequenceType_, q(name_of(s.sequence.type)));
  selectData(rfFidelity_, q(name_of(s.sequence.fidelity.rf)));
  selectData(gradientFidelity_, q(name_of(s.sequence.fidelity.gradients)));
  selectData(spoilingFidelity_, q(name_of(s.sequence.fidelity.spoiling)));
  coils_->setValue(s.coils.count);
  selectData(coilArrangement_, q(s.coils.arrangement));
  acceleration_->setValue(s.sequence.acceleration);
  acsLines_->setValue(s.sequence.acs_lines);
  selectData(reconMethod_, q(name_of(s.recon.method)));
  kernelPe_->setValue(s.recon.grappa_kernel_pe);
  kernelRo_->setValue(s.recon.grappa_kernel_ro);
  lambda_->setValue(s.recon.grappa_lambda);
  selectData(approach_, q(s.recon.grappa_approach));
  eta_->setValue(s.recon.grappa_eta);
  clip_->setValue(s.recon.grappa_clip);
  cgIterations_->setValue(s.recon.cg_iterations);
  cgLambda_->setValue(s.recon.cg_lambda);
  selectData(undersampling_, q(s.sequence.undersampling));
  undersamplingSeed_->setValue(s.sequence.undersampling_seed);
  selectData(coilMaps_, q(s.recon.maps.value_or(std::string())));
  selectData(csRegularizer_, q(s.recon.cs_regularizer));
  csLambda_->setValue(s.recon.cs_lambda);
  csIterations_->setValue(s.recon.cs_iterations);
  tr_->setValue(s.sequence.TR_s * 1e3);
  te_->setValue(s.sequence.TE_s * 1e3);
  flip_->setValue(s.sequence.flip_angle_deg);
  fov_->setValue(s.sequence.fov_m * 1e3);
  matrix_->setValue(s.sequence.matrix);
  bandwidth_->setValue(s.sequence.bandwidth_Hz_per_pixel);
  dummyScans_->setValue(s.sequence.dummy_scans);
  maxGrad_->setValue(s.sequence.max_grad_mT_per_m);
  maxSlew_->setValue(s.sequence.max_slew_T_per_m_per_s);
  partialFourier_->setValue(s.sequence.partial_fourier);
  filling_ = false;
}

QString ScenarioPanel::fieldInMessage(const QString& message, const QStringList& keys) {
  // core's messages read "<source>: <field> ..."; the earliest whole key in the text is the culprit.
  QString best;
  qsizetype bestAt = -1;
  for (const QString& key : keys) {
    const QRegularExpression re(QStringLiteral("(?<![A-Za-z0-9_.])%1(?![A-Za-z0-9_])").arg(QRegularExpression::escape(key)));
    const auto m = re.match(message);
    if (m.hasMatch() && (bestAt < 0 || m.capturedStart() < bestAt || (m.capturedStart() == bestAt && key.size() > best.size()))) {
      best = key;
      bestAt = m.capturedStart();
    }
  }
  return best;
}

void ScenarioPanel::setValidationMessage(const QString& message) {
  for (auto it = fieldMessages_.begin(); it != fieldMessages_.end(); ++it) {
    it.value()->clear();
    it.value()->setVisible(false);
    fields_.value(it.key())->setStyleSheet({});
  }
  validation_->clear();
  validation_->setVisible(false);
  if (message.isEmpty()) return;
  const QString key = fieldInMessage(message, fields_.keys());
  if (key.isEmpty()) {
    validation_->setText(message);
    validation_->setVisible(true);
    return;
  }
  QLabel* label = fieldMessages_.value(key);
  // Drop the "<source>: " prefix: the field is right above.
  const qsizetype at = message.indexOf(QStringLiteral(": "));
  label->setText(at >= 0 && at < message.indexOf(key) ? message.mid(at + 2) : message);
  label->setVisible(true);
  fields_.value(key)->setStyleSheet(kInvalidEditorStyle);
}

QString ScenarioPanel::fieldMessage(const QString& key) const {
  const QLabel* label = fieldMessages_.value(key);
  return label && !label->isHidden() ? label->text() : QString();
}

QString ScenarioPanel::generalMessage() const { return validation_->isHidden() ? QString() : validation_->text(); }

}  // namespace mrwb::ui
