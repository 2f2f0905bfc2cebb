// The main window's design docks and its Compare room: the phantom's vessel tree in 3-D with the segment
// editor, the flow field, the sequence diagram, the k-space trajectory, the coil maps, for phase contrast
// the velocity map, and Pulseq (import, export, play an imported file); the multi-method comparison is the
// central area's second tab.
// Each view computes through core; the window only feeds it the edited scenario and the finished run.
#include <QDockWidget>
#include <QTabBar>
#include <QFileDialog>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "mrwb_ui/coil_map_view.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/flow_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/kspace_view.hpp"
#include "mrwb_ui/volume_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/pulseq_panel.hpp"
#include "mrwb_ui/scenario_document.hpp"
#include "mrwb_ui/segment_editor.hpp"
#include "mrwb_ui/sequence_diagram_view.hpp"
#include "mrwb_ui/sweep_view.hpp"
#include "mrwb_ui/trajectory_plot_view.hpp"
#include "mrwb_ui/vessel_tree_view.hpp"

namespace mrwb::ui {
namespace {

// A view in a scroll area: the dock column may be narrower than the view's own minimum (the comparison
// table, the coil grid) without squeezing the central images.
QWidget* scrollable(QWidget* view) {
  auto* area = new QScrollArea;
  area->setWidget(view);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

void MainWindow::buildViewDocks() {
  treeView_ = new VesselTreeView;
  flowView_ = new FlowView;
  sequenceView_ = new SequenceDiagramView;
  trajectoryView_ = new TrajectoryPlotView;
  coilView_ = new CoilMapView;
  comparison_ = new ComparisonView;
  pulseq_ = new PulseqPanel;
  sweep_ = new SweepView;
  kspace_ = new KspaceView;
  volume_ = new VolumeView;
  velocityView_ = new ImageView;
  velocityView_->clearImage(tr("Run a phase-contrast scenario to see its velocity map"));

  // Tabbed on the right: the design views first, then the results that compare methods.
  // The 3-D tree over the editor of the segment picked in it; edits go through the undo stack.
  segmentEditor_ = new SegmentEditor;
  auto* phantomPane = new QWidget;
  auto* phantomLayout = new QVBoxLayout(phantomPane);
  phantomLayout->setContentsMargins(0, 0, 0, 0);
  phantomLayout->addWidget(treeView_, 1);
  phantomLayout->addWidget(segmentEditor_);
  connect(treeView_, &VesselTreeView::segmentPicked, this,
          [this](int s) { segmentEditor_->setSegment(treeView_->generatedIndex(s), treeView_->segmentInfo(s)); });
  connect(segmentEditor_, &SegmentEditor::scenarioEdited, this,
          [this](const mrwb::Scenario& s, const QString& field) { doc_->edit(s, field); });
  QDockWidget* first =
      addPanelDock(QStringLiteral("phantomDock"), tr("Phantom 3-D"), scrollable(phantomPane), Qt::RightDockWidgetArea);
  const std::pair<const char*, std::pair<QString, QWidget*>> more[] = {
      {"kspaceDock", {tr("K-space"), kspace_}},
      {"volumeDock", {tr("Volume"), volume_}},
      {"flowDock", {tr("Flow"), flowView_}},
      {"sequenceDock", {tr("Sequence"), sequenceView_}},
      {"trajectoryDock", {tr("Trajectory"), trajectoryView_}},
      {"coilsDock", {tr("Coils"), coilView_}},
      {"velocityDock", {tr("Velocity"), velocityView_}},
      {"pulseqDock", {tr("Pulseq"), pulseq_}},
      {"sweepDock", {tr("Sweep"), sweep_}},
  };
  for (const auto& [name, titled] : more) {
    QDockWidget* d = addPanelDock(QString::fromLatin1(name), titled.first, scrollable(titled.second), Qt::RightDockWidgetArea);
    tabifyDockWidget(first, d);
  }
  first->raise();
  rooms_->addTab(comparison_, tr("Compare"));
  connect(rooms_, &QTabWidget::currentChanged, this, &MainWindow::onRoomChanged);
  // Side tabs keep every title readable, and a narrow column leaves the centre to the images.
  setTabPosition(Qt::RightDockWidgetArea, QTabWidget::East);
  resizeDocks({first}, {380}, Qt::Horizontal);
  connect(this, &QMainWindow::tabifiedDockWidgetActivated, this, [this] { keepDockTitlesWhole(); });

  connect(this, &MainWindow::scenarioChanged, this, [this](const mrwb::Scenario& s) {
    treeView_->setScenario(s);
    segmentEditor_->setScenario(s);
    const int shown = treeView_->selectedSegment();  // kept across a segment edit, gone on a new tree
    segmentEditor_->setSegment(treeView_->generatedIndex(shown), treeView_->segmentInfo(shown));
    flowView_->setScenario(s);
    sequenceView_->setScenario(s);
    trajectoryView_->setScenario(s);
    coilView_->setScenario(s);
    comparison_->setScenario(s);
    pulseq_->setScenario(s);
    sweep_->setScenario(s);
  });
}

// Eleven tabs on a side bar 800 px high would be elided to "V…" (Volume? Velocity? Vessel?): whole titles and
// scroll arrows instead. QMainWindow makes its tab bars (its direct children) as it lays the docks out, so
// this runs on show and whenever a tab is activated.
void MainWindow::keepDockTitlesWhole() {
  for (QTabBar* bar : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
    bar->setElideMode(Qt::ElideNone);
    bar->setUsesScrollButtons(true);
  }
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  keepDockTitlesWhole();
}

bool MainWindow::selectSegment(int s) {
  if (s < 0 || s >= treeView_->segmentCount()) return false;
  treeView_->selectSegment(s);
  segmentEditor_->setSegment(treeView_->generatedIndex(s), treeView_->segmentInfo(s));
  return true;
}

bool MainWindow::importPulseq(const QString& path) {
  showPanel(QStringLiteral("pulseqDock"));
  if (pulseq_->importFile(path)) {
    statusBar()->showMessage(pulseq_->infoText(), 15000);
    return true;
  }
  reportError(tr("Import Pulseq"), pulseq_->lastError());
  return false;
}

bool MainWindow::exportPulseq(const QString& path) {
  if (pulseq_->exportScenario(scenario(), path)) {
    statusBar()->showMessage(tr("Pulseq written: %1").arg(path), 15000);
    return true;
  }
  showPanel(QStringLiteral("pulseqDock"));
  reportError(tr("Export Pulseq"), pulseq_->lastError());
  return false;
}

void MainWindow::importPulseqDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Import Pulseq"), {}, tr("Pulseq (*.seq)"));
  if (!path.isEmpty()) importPulseq(path);
}

void MainWindow::exportPulseqDialog() {
  QString path = QFileDialog::getSaveFileName(this, tr("Export Pulseq"), QString::fromStdString(scenario().name) + ".seq",
                                              tr("Pulseq (*.seq)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QStringLiteral(".seq"))) path += QStringLiteral(".seq");
  exportPulseq(path);
}

void MainWindow::showViewResults(const mrwb::PipelineResult& r) {
  if (r.volume_raw)
    comparison_->setVolumeData(*r.volume_raw, r.truth_volume);
  else
    comparison_->setRawData(r.raw, r.truth);
  trajectoryView_->setRawData(r.raw);
  kspace_->setRawData(r.raw);
  coilView_->setRawData(r.raw);
  if (r.recon_volume && r.truth_volume && r.volume_metrics) volume_->setVolumes(*r.recon_volume, *r.truth_volume, *r.volume_metrics);
  else volume_->clear();
  if (!r.velocity || r.velocity->v_m_per_s.empty()) {
    velocityView_->clearImage(tr("Run a phase-contrast scenario to see its velocity map"));
    return;
  }
  // The first encoded axis, on a diverging colormap symmetric about 0 and spanning ±VENC.
  const auto& v = *r.velocity;
  static const char* const kAxis[] = {"x", "y", "z"};
  const int axis = v.axes.empty() ? 0 : std::clamp(v.axes.front(), 0, 2);
  velocityView_->setImage(v.v_m_per_s.front(), v.nx, v.ny, true,
                          tr("Velocity v%1 [m/s], VENC %2 m/s").arg(QLatin1String(kAxis[axis])).arg(v.venc_m_per_s),
                          std::make_pair(-v.venc_m_per_s, v.venc_m_per_s));
}

}  // namespace mrwb::ui
