#include "mrwb_ui/flow_view.hpp"

#include "mrwb/scenario/scenario_phantom.hpp"

#include <QHBoxLayout>
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <vtkActor.h>
#include <vtkArrowSource.h>
#include <vtkCamera.h>
#include <vtkCoordinate.h>
#include <vtkFloatArray.h>
#include <vtkGlyph3D.h>
#include <vtkImageActor.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkInteractorStyleImage.h>
#include <vtkLookupTable.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {
constexpr double kCmPerS = 100.0;
constexpr int kArrowsAcross = 24;  // about this many arrows across the field
}  // namespace

struct FlowView::Job {
  std::shared_ptr<mrwb::FlowField> field;
  QString backend;
};

FlowView::FlowView(QWidget* parent) : QWidget(parent) {
  runners_.push_back([](const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
    return lbm_run_cpu(d, p, progress, cancel);
  });
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  backendBox_ = new QComboBox(this);
  backendBox_->setObjectName(QStringLiteral("flowBackend"));
  backendBox_->addItem(tr("CPU"));
  backendBox_->setToolTip(tr("Where the lattice Boltzmann solver runs (Poiseuille is analytic, on the CPU)"));
  computeButton_ = new QPushButton(tr("Compute flow"), this);
  cancelButton_ = new QPushButton(tr("Cancel"), this);
  progress_ = new QProgressBar(this);
  progress_->setTextVisible(false);
  status_ = new QLabel(tr("Press Compute flow"), this);
  worker_ = new BackgroundJob(this);
  worker_->driveProgressBar(progress_);
  worker_->attachControls(computeButton_, cancelButton_);
  connect(worker_, &BackgroundJob::progress, this,
          [this](double, const QString& stage) { status_->setText(tr("Computing flow (%1)…").arg(stage)); });
  connect(worker_, &BackgroundJob::finished, this, &FlowView::onFinished);
  bar->addWidget(computeButton_);
  bar->addWidget(cancelButton_);
  bar->addWidget(progress_, 1);
  layout->addLayout(bar);
  // The backend on its own row with the status: the dock column is narrow.
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(new QLabel(tr("LBM on"), this));
  statusRow->addWidget(backendBox_);
  statusRow->addWidget(status_, 1);
  status_->setWordWrap(true);
  layout->addLayout(statusRow);
  canvas_ = new VtkOpenGLWidget(this);
  layout->addWidget(canvas_, 1);
  connect(computeButton_, &QPushButton::clicked, this, &FlowView::computeFlow);

  vtkRenderer* ren = canvas_->renderer();
  ren->GradientBackgroundOn();
  ren->SetBackground(0.07, 0.08, 0.09);
  ren->SetBackground2(0.16, 0.17, 0.20);
  fillLookupTable(lut_, colormap::inferno_like);  // dark (still) to bright (fast)
  speedActor_->SetInputData(speed_);
  speedActor_->GetProperty()->SetLookupTable(lut_);
  speedActor_->GetProperty()->UseLookupTableScalarRangeOn();
  speedActor_->GetProperty()->SetInterpolationTypeToNearest();
  speedActor_->VisibilityOff();
  ren->AddViewProp(speedActor_);
  arrows_->GetProperty()->SetColor(0.35, 0.95, 1.0);  // cyan: apart from every colour of the speed map
  arrows_->VisibilityOff();
  ren->AddActor(arrows_);

  colorbar_->SetLookupTable(lut_);
  colorbar_->SetTitle("|u| [cm/s]");
  styleColorbar(colorbar_, 0.84, 0.10, 0.14, 0.76);
  colorbar_->SetLabelFormat("%.3g");
  colorbar_->VisibilityOff();
  ren->AddViewProp(colorbar_);
  styleVtkText(titleText_->GetTextProperty(), 14, kVtkTitleRgb, true);
  titleText_->GetTextProperty()->SetVerticalJustificationToTop();
  titleText_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  titleText_->GetPositionCoordinate()->SetValue(0.015, 0.975);
  titleText_->SetInput("No flow field yet. Press Compute flow.");
  ren->AddViewProp(titleText_);

  vtkNew<vtkInteractorStyleImage> style;  // 2-D: zoom and pan, no rotation
  canvas_->interactor()->SetInteractorStyle(style);
}

FlowView::~FlowView() = default;  // worker_ (a child) cancels and waits

void FlowView::setLbmRunner(mrwb::LbmRunner runner) {
  if (runner) runners_[std::max(0, backendBox_->currentIndex())] = std::move(runner);
}

int FlowView::addLbmBackend(const QString& label, mrwb::LbmRunner runner) {
  if (!runner) return -1;
  runners_.push_back(std::move(runner));
  backendBox_->addItem(label);
  backendBox_->setCurrentIndex(backendBox_->count() - 1);
  return backendBox_->count() - 1;
}

void FlowView::setScenario(const mrwb::Scenario& scenario) {
  scenario_ = scenario;
  if (field_) status_->setText(tr("Scenario changed: press Compute flow to update the field"));
}

void FlowView::computeFlow() {
  if (worker_->busy()) return;
  error_.clear();
  auto job = std::make_shared<Job>();
  job_ = job;
  const Scenario s = scenario_;
  const LbmRunner runner = runners_[std::max(0, backendBox_->currentIndex())];
  job->backend = s.flow.solver == "lbm" ? backendBox_->currentText() : tr("CPU");
  worker_->start(
      [job, s, runner](const ProgressFn& progress, const CancelToken& cancel) {
        job->field = std::make_shared<FlowField>(scenario_flow_field(s, s.flow.solver, runner, {}, progress, cancel));
      },
      QStringLiteral("mrwb-flow"));
  backendBox_->setEnabled(false);
  progress_->setValue(0);
  status_->setText(tr("Computing flow (%1)…").arg(QString::fromStdString(s.flow.solver)));
}

void FlowView::cancel() {
  worker_->cancel();
}

void FlowView::onFinished() {
  backendBox_->setEnabled(true);
  const Job& job = *job_;
  bool ok = false;
  if (worker_->outcome() == BackgroundJob::Outcome::Cancelled) {
    status_->setText(tr("Cancelled; the previous field is kept"));
  } else if (worker_->outcome() == BackgroundJob::Outcome::Failed) {
    error_ = worker_->error();
    status_->setText(tr("Flow failed: %1").arg(error_));
  } else {
    field_ = job.field;
    fieldBackend_ = job.backend;
    progress_->setValue(1000);
    showField();
    status_->setText(status_->text() + tr(" · computed on %1").arg(fieldBackend_));
    ok = true;
  }
  emit flowComputed(ok);
}

void FlowView::showField() {
  const FlowField& f = *field_;
  const CellGrid& g = f.grid;
  // The imaging slice: z = 0, i.e. the layer nearest it for a 3-D field.
  const int z = g.nz == 1 ? 0 : std::clamp(static_cast<int>(std::lround(-g.origin_m.z / g.cell_m)), 0, g.nz - 1);
  speed_->SetDimensions(g.nx, g.ny, 1);
  speed_->SetOrigin(g.origin_m.x * kMmPerM, g.origin_m.y * kMmPerM, 0);
  speed_->SetSpacing(g.cell_m * kMmPerM, g.cell_m * kMmPerM, 1);
  speed_->AllocateScalars(VTK_FLOAT, 1);
  auto* px = static_cast<float*>(speed_->GetScalarPointer());
  double vmax = 0;
  for (int y = 0; y < g.ny; ++y)
    for (int x = 0; x < g.nx; ++x) {
      const std::size_t i = g.index(x, y, z);
      const double u = std::hypot(f.ux_m_per_s[i], f.uy_m_per_s[i], f.uz_m_per_s.empty() ? 0.f : f.uz_m_per_s[i]);
      px[static_cast<std::size_t>(y) * g.nx + x] = static_cast<float>(u * kCmPerS);
      vmax = std::max(vmax, u * kCmPerS);
    }
  speed_->Modified();
  lut_->SetRange(0, vmax > 0 ? vmax : 1);
  speedActor_->VisibilityOn();
  colorbar_->VisibilityOn();

  // Arrows on every stride-th moving cell, length proportional to |u| (the fastest = 3 strides).
  const int stride = std::max(1, std::max(g.nx, g.ny) / kArrowsAcross);
  vtkNew<vtkPoints> pts;
  vtkNew<vtkFloatArray> vec;
  vec->SetNumberOfComponents(3);
  vec->SetName("velocity");
  for (int y = stride / 2; y < g.ny; y += stride)
    for (int x = stride / 2; x < g.nx; x += stride) {
      const std::size_t i = g.index(x, y, z);
      const float ux = f.ux_m_per_s[i], uy = f.uy_m_per_s[i];
      if (std::hypot(ux, uy) * kCmPerS < 0.02 * vmax) continue;
      pts->InsertNextPoint(g.origin_m.x * kMmPerM + x * g.cell_m * kMmPerM, g.origin_m.y * kMmPerM + y * g.cell_m * kMmPerM, 0.1);
      vec->InsertNextTuple3(ux * kCmPerS, uy * kCmPerS, 0);
    }
  vtkNew<vtkPolyData> seeds;
  seeds->SetPoints(pts);
  seeds->GetPointData()->SetVectors(vec);
  vtkNew<vtkArrowSource> arrow;
  arrow->SetShaftRadius(0.07);
  arrow->SetTipRadius(0.2);
  arrow->SetTipLength(0.4);
  vtkNew<vtkGlyph3D> glyphs;
  glyphs->SetSourceConnection(arrow->GetOutputPort());
  glyphs->SetInputData(seeds);
  glyphs->SetVectorModeToUseVector();
  glyphs->SetScaleModeToScaleByVector();
  glyphs->OrientOn();
  glyphs->SetScaleFactor(vmax > 0 ? 3.0 * stride * g.cell_m * kMmPerM / vmax : 1.0);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(glyphs->GetOutputPort());
  mapper->ScalarVisibilityOff();
  arrows_->SetMapper(mapper);
  arrows_->SetVisibility(pts->GetNumberOfPoints() > 0);

  QString title = tr("%1 · max |u| %2 cm/s").arg(QString::fromStdString(f.solver)).arg(vmax, 0, 'g', 3);
  if (f.solver.rfind("lbm", 0) == 0)
    title += tr(" · %1 steps%2").arg(f.steps).arg(f.converged ? QString() : tr(" (not converged)"));
  titleText_->SetInput(title.toUtf8().constData());
  status_->setText(tr("Flow field: %1 x %2%3 cells of %4 mm")
                       .arg(g.nx)
                       .arg(g.ny)
                       .arg(g.nz > 1 ? QStringLiteral(" x %1").arg(g.nz) : QString())
                       .arg(g.cell_m * kMmPerM, 0, 'g', 3));

  // Top view of the slice with room for the colorbar on the right.
  vtkRenderer* ren = canvas_->renderer();
  vtkCamera* cam = ren->GetActiveCamera();
  cam->ParallelProjectionOn();
  const double w = g.nx * g.cell_m * kMmPerM, h = g.ny * g.cell_m * kMmPerM;
  const double cx = g.origin_m.x * kMmPerM + 0.5 * (g.nx - 1) * g.cell_m * kMmPerM;
  const double cy = g.origin_m.y * kMmPerM + 0.5 * (g.ny - 1) * g.cell_m * kMmPerM;
  const int* size = canvas_->renderWindow()->GetSize();
  const double aspect = (size[0] > 0 && size[1] > 0) ? static_cast<double>(size[0]) / size[1] : 1.0;
  const double scale = std::max(h / (2 * 0.86), w / (2 * 0.78 * aspect));
  cam->SetFocalPoint(cx + 0.1 * scale * aspect, cy, 0);
  cam->SetPosition(cx + 0.1 * scale * aspect, cy, 1000);
  cam->SetViewUp(0, 1, 0);
  cam->SetParallelScale(scale);
  ren->ResetCameraClippingRange();
  canvas_->update();
}

}  // namespace mrwb::ui
