#include "mrwb_ui/vessel_tree_view.hpp"

#include "mrwb/scenario/scenario_phantom.hpp"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>
#include <exception>

#include <vtkActor.h>
#include <vtkAppendPolyData.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellPicker.h>
#include <vtkCoordinate.h>
#include <vtkDataSet.h>
#include <vtkDoubleArray.h>
#include <vtkIntArray.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLookupTable.h>
#include <vtkPlaneSource.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyLine.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSphereSource.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkTubeFilter.h>

#include "mrwb/flow/flow.hpp"
#include "mrwb/phantom/vessel_generators.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/scenario_document.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {


double meanOf(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

// Centrelines as one polyline per segment: point data "radius" [mm] drives the tube radius, cell data
// "segment" maps a picked cell back to its segment (vtkTubeFilter copies cell data to the tube).
vtkSmartPointer<vtkPolyData> centrelines(const VesselTree& tree, const std::vector<int>& only, double radiusScale) {
  vtkNew<vtkPoints> points;
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkDoubleArray> radius;
  radius->SetName("radius");
  vtkNew<vtkIntArray> segment;
  segment->SetName("segment");
  for (int s : only) {
    const VesselSegment& seg = tree.segments[s];
    lines->InsertNextCell(static_cast<vtkIdType>(seg.centreline_m.size()));
    for (std::size_t i = 0; i < seg.centreline_m.size(); ++i) {
      const Vec3& p = seg.centreline_m[i];
      lines->InsertCellPoint(points->InsertNextPoint(p.x * kMmPerM, p.y * kMmPerM, p.z * kMmPerM));
      radius->InsertNextValue(seg.radius_m[i] * kMmPerM * radiusScale);
    }
    segment->InsertNextValue(s);
  }
  auto poly = vtkSmartPointer<vtkPolyData>::New();
  poly->SetPoints(points);
  poly->SetLines(lines);
  poly->GetPointData()->AddArray(radius);
  poly->GetPointData()->SetActiveScalars("radius");
  poly->GetCellData()->AddArray(segment);
  return poly;
}

vtkSmartPointer<vtkPolyData> tubesOf(vtkPolyData* lines) {
  vtkNew<vtkTubeFilter> tube;
  tube->SetInputData(lines);
  tube->SetVaryRadiusToVaryRadiusByAbsoluteScalar();
  tube->SetNumberOfSides(20);
  tube->CappingOn();
  tube->Update();
  auto out = vtkSmartPointer<vtkPolyData>::New();
  out->ShallowCopy(tube->GetOutput());
  return out;
}

// A closed polyline: the ellipse with semi-axes (a, b) in the plane spanned by axes u, v (0 x, 1 y, 2 z).
void addEllipse(vtkPoints* points, vtkCellArray* lines, double a, double b, int u, int v) {
  const int n = 128;
  lines->InsertNextCell(n + 1);
  vtkIdType first = -1;
  for (int i = 0; i < n; ++i) {
    const double t = 2 * M_PI * i / n;
    double p[3] = {0, 0, 0};
    p[u] = a * std::cos(t) * kMmPerM;
    p[v] = b * std::sin(t) * kMmPerM;
    const vtkIdType id = points->InsertNextPoint(p);
    if (i == 0) first = id;
    lines->InsertCellPoint(id);
  }
  lines->InsertCellPoint(first);
}

void setPolyData(vtkActor* actor, vtkPolyData* poly) {
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputData(poly);
  mapper->ScalarVisibilityOff();
  actor->SetMapper(mapper);
}

}  // namespace

VesselTreeView::VesselTreeView(QWidget* parent) : VtkOpenGLWidget(parent) {
  vtkRenderer* ren = renderer();
  ren->GradientBackgroundOn();
  ren->SetBackground(0.07, 0.08, 0.09);
  ren->SetBackground2(0.18, 0.19, 0.23);
  for (vtkActor* a : {tubes_.Get(), highlight_.Get(), sacs_.Get(), tissue_.Get(), slice_.Get()}) {
    a->VisibilityOff();
    ren->AddActor(a);
  }
  tissue_->GetProperty()->SetColor(0.85, 0.62, 0.55);
  tissue_->GetProperty()->SetLineWidth(2);
  slice_->GetProperty()->SetColor(0.55, 0.75, 1.0);
  slice_->GetProperty()->SetOpacity(0.18);
  slice_->PickableOff();
  tissue_->PickableOff();
  sacs_->PickableOff();
  highlight_->PickableOff();
  sacs_->GetProperty()->SetColor(0.9, 0.35, 0.35);
  sacs_->GetProperty()->SetOpacity(0.7);
  highlight_->GetProperty()->SetColor(1.0, 0.95, 0.3);
  highlight_->GetProperty()->SetOpacity(0.45);

  // Blue (slow / thin) to red (fast / wide): the signed image views' cool-warm.
  fillLookupTable(lut_, colormap::cool_warm_msh);
  colorbar_->SetLookupTable(lut_);
  styleColorbar(colorbar_, 0.84, 0.12, 0.14, 0.72);
  colorbar_->VisibilityOff();
  ren->AddViewProp(colorbar_);

  styleVtkText(titleText_->GetTextProperty(), 14, kVtkTitleRgb, true);
  titleText_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  titleText_->GetPositionCoordinate()->SetValue(0.015, 0.95);
  titleText_->GetTextProperty()->SetVerticalJustificationToTop();
  ren->AddViewProp(titleText_);

  picker_->SetTolerance(0.002);
  picker_->PickFromListOn();
  picker_->AddPickList(tubes_);

  vtkNew<vtkInteractorStyleTrackballCamera> style;
  interactor()->SetInteractorStyle(style);
  setToolTip(tr("Click a vessel to select it · Left drag: rotate · Wheel: zoom · Middle drag: pan"));
}

VesselTreeView::~VesselTreeView() = default;

void VesselTreeView::setScenario(const mrwb::Scenario& scenario) {
  // A segment edit keeps the camera and the selection (by generated index); a new tree resets them.
  const int selectedGenerated = generatedIndex(selected_);
  auto plain = [](mrwb::Scenario s) {
    s.phantom.tree.segment_edits.clear();
    return s;
  };
  const bool sameTree = ScenarioDocument::jsonText(plain(scenario)) == ScenarioDocument::jsonText(plain(scenario_));
  scenario_ = scenario;
  tree_ = {};
  generated_.clear();
  radius_m_.clear();
  velocity_m_per_s_.clear();
  message_.clear();
  selected_ = -1;
  try {
    if (scenario.phantom.preset != "uniform_disc") {
      if (scenario.phantom.preset == "vessel_tree")
        tree_ = generate_vessel_tree(scenario.phantom.tree, "phantom.tree", &generated_);
      else
        tree_ = scenario_vessel_tree(scenario);
      const auto flows = poiseuille_split(tree_, scenario.flow.inlet_flow_m3_per_s, scenario.flow.viscosity_Pa_s);
      for (std::size_t s = 0; s < tree_.segments.size(); ++s) {
        const double r = meanOf(tree_.segments[s].radius_m);
        radius_m_.push_back(r);
        velocity_m_per_s_.push_back(flows[s].flow_m3_per_s / (M_PI * r * r));
      }
    } else {
      message_ = tr("No vessels in a uniform disc");
    }
  } catch (const std::exception& e) {
    tree_ = {};
    generated_.clear();
    radius_m_.clear();
    velocity_m_per_s_.clear();
    message_ = QString::fromStdString(e.what());
  }
  if (generated_.size() != tree_.segments.size()) {
    generated_.resize(tree_.segments.size());
    for (std::size_t i = 0; i < generated_.size(); ++i) generated_[i] = static_cast<int>(i);
  }
  if (sameTree) selected_ = shownIndex(selectedGenerated);
  rebuildContext();
  rebuildTubes();
  rebuildHighlight();
  if (sameTree)
    update();
  else
    resetCamera();
}

int VesselTreeView::generatedIndex(int s) const {
  return s >= 0 && s < static_cast<int>(generated_.size()) ? generated_[s] : -1;
}

int VesselTreeView::shownIndex(int generated) const {
  if (generated < 0) return -1;
  const auto it = std::find(generated_.begin(), generated_.end(), generated);
  return it == generated_.end() ? -1 : static_cast<int>(it - generated_.begin());
}

QString VesselTreeView::segmentInfo(int s) const {
  if (s < 0 || s >= segmentCount()) return {};
  const VesselSegment& g = tree_.segments[s];
  return tr("Segment %1 · mean radius %2 mm · length %3 mm · mean u %4 cm/s · %5 children")
      .arg(generatedIndex(s))
      .arg(radius_m_[s] * 1e3, 0, 'f', 2)
      .arg(tree_.segment_length_m(s) * 1e3, 0, 'f', 1)
      .arg(velocity_m_per_s_[s] * 100, 0, 'f', 1)
      .arg(g.children.size());
}

void VesselTreeView::setColorBy(ColorBy by) {
  colorBy_ = by;
  rebuildTubes();
  update();
}

void VesselTreeView::rebuildTubes() {
  if (tree_.segments.empty()) {
    tubes_->VisibilityOff();
    colorbar_->VisibilityOff();
    titleText_->SetInput(message_.toUtf8().constData());
    return;
  }
  std::vector<int> all(tree_.segments.size());
  for (std::size_t s = 0; s < all.size(); ++s) all[s] = static_cast<int>(s);
  vtkSmartPointer<vtkPolyData> tube = tubesOf(centrelines(tree_, all, 1.0));
  // Colour per segment (cell data follows the segment array through the tube filter).
  const bool byVelocity = colorBy_ == ColorBy::Velocity;
  const std::vector<double>& perSegment = byVelocity ? velocity_m_per_s_ : radius_m_;
  const double unit = byVelocity ? 100.0 : 1e3;  // cm/s, mm
  vtkNew<vtkDoubleArray> colour;
  colour->SetName("colour");
  auto* seg = vtkIntArray::SafeDownCast(tube->GetCellData()->GetArray("segment"));
  double lo = 1e300, hi = -1e300;
  for (double v : perSegment) {
    lo = std::min(lo, v * unit);
    hi = std::max(hi, v * unit);
  }
  if (!(hi > lo)) hi = lo + std::max(1e-6, std::abs(lo) * 1e-3);
  for (vtkIdType c = 0; c < tube->GetNumberOfCells(); ++c) colour->InsertNextValue(perSegment[seg->GetValue(c)] * unit);
  tube->GetCellData()->AddArray(colour);

  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputData(tube);
  mapper->SetScalarModeToUseCellFieldData();
  mapper->SelectColorArray("colour");
  mapper->SetLookupTable(lut_);
  mapper->SetScalarRange(lo, hi);
  mapper->ScalarVisibilityOn();
  lut_->SetRange(lo, hi);
  tubes_->SetMapper(mapper);
  tubes_->VisibilityOn();
  colorbar_->SetTitle(byVelocity ? "mean u\n[cm/s]" : "radius\n[mm]");
  colorbar_->SetLabelFormat(byVelocity ? "%.3g" : "%.2f");
  colorbar_->VisibilityOn();
  const QString title = tr("%1 segments · coloured by %2%3")
                            .arg(tree_.segments.size())
                            .arg(byVelocity ? tr("Poiseuille mean velocity") : tr("lumen radius"))
                            .arg(message_.isEmpty() ? QString() : " · " + message_);
  titleText_->SetInput(title.toUtf8().constData());
}

void VesselTreeView::rebuildContext() {
  const PhantomSpec& ph = scenario_.phantom;
  vtkNew<vtkPoints> points;
  vtkNew<vtkCellArray> lines;
  const bool organ = ph.preset == "vessel_tree" && ph.tree.generator == "organ_tree";
  if (organ) {
    const double* ax = ph.tree.organ_semi_axes_m;
    addEllipse(points, lines, ax[0], ax[1], 0, 1);
    if (tree_.dims == 3) {
      addEllipse(points, lines, ax[0], ax[2], 0, 2);
      addEllipse(points, lines, ax[1], ax[2], 1, 2);
    }
  } else {
    addEllipse(points, lines, ph.disc_radius_m, ph.disc_radius_m, 0, 1);
  }
  vtkNew<vtkPolyData> outline;
  outline->SetPoints(points);
  outline->SetLines(lines);
  setPolyData(tissue_, outline);
  tissue_->VisibilityOn();

  // The imaging slice: the plane z = 0 over the square FOV.
  const double h = 0.5 * scenario_.sequence.fov_m * kMmPerM;
  vtkNew<vtkPlaneSource> plane;
  plane->SetOrigin(-h, -h, 0);
  plane->SetPoint1(h, -h, 0);
  plane->SetPoint2(-h, h, 0);
  plane->Update();
  setPolyData(slice_, plane->GetOutput());
  slice_->VisibilityOn();

  vtkNew<vtkAppendPolyData> sacs;
  for (const AneurysmSac& sac : tree_.sacs) {
    vtkNew<vtkSphereSource> sphere;
    sphere->SetCenter(sac.centre_m.x * kMmPerM, sac.centre_m.y * kMmPerM, sac.centre_m.z * kMmPerM);
    sphere->SetRadius(sac.radius_m * kMmPerM);
    sphere->SetThetaResolution(32);
    sphere->SetPhiResolution(24);
    sphere->Update();
    sacs->AddInputData(sphere->GetOutput());
  }
  if (!tree_.sacs.empty()) {
    sacs->Update();
    setPolyData(sacs_, sacs->GetOutput());
  }
  sacs_->SetVisibility(!tree_.sacs.empty());
}

void VesselTreeView::rebuildHighlight() {
  if (selected_ < 0 || selected_ >= segmentCount()) {
    highlight_->VisibilityOff();
    return;
  }
  setPolyData(highlight_, tubesOf(centrelines(tree_, {selected_}, 1.35)));
  highlight_->VisibilityOn();
}

void VesselTreeView::selectSegment(int segment) {
  selected_ = (segment >= 0 && segment < segmentCount()) ? segment : -1;
  rebuildHighlight();
  update();
}

int VesselTreeView::pickAt(const QPoint& pos) {
  if (tree_.segments.empty()) return -1;
  const qreal dpr = devicePixelRatioF();
  const int* size = renderWindow()->GetSize();
  const double x = pos.x() * dpr, y = size[1] - 1 - pos.y() * dpr;
  if (!picker_->Pick(x, y, 0, renderer())) return -1;
  auto* data = picker_->GetDataSet();
  const vtkIdType cell = picker_->GetCellId();
  auto* seg = data ? vtkIntArray::SafeDownCast(data->GetCellData()->GetArray("segment")) : nullptr;
  if (!seg || cell < 0 || cell >= seg->GetNumberOfTuples()) return -1;
  const int s = seg->GetValue(cell);
  selectSegment(s);
  emit segmentPicked(s);
  return s;
}

QPoint VesselTreeView::segmentScreenPosition(int s) {
  if (s < 0 || s >= segmentCount()) return {};
  const auto& line = tree_.segments[s].centreline_m;
  // Middle of the segment's polyline (by point count: generators space points evenly).
  const std::size_t i = line.size() / 2;
  const Vec3 a = line[i - (line.size() % 2 == 0 ? 1 : 0)], b = line[i];
  vtkNew<vtkCoordinate> c;
  c->SetCoordinateSystemToWorld();
  c->SetValue(0.5 * (a.x + b.x) * kMmPerM, 0.5 * (a.y + b.y) * kMmPerM, 0.5 * (a.z + b.z) * kMmPerM);
  const double* d = c->GetComputedDoubleDisplayValue(renderer());
  const int* size = renderWindow()->GetSize();
  const qreal dpr = devicePixelRatioF();
  return QPoint(qRound(d[0] / dpr), qRound((size[1] - 1 - d[1]) / dpr));
}

void VesselTreeView::resetCamera() {
  vtkCamera* cam = renderer()->GetActiveCamera();
  cam->SetFocalPoint(0, 0, 0);
  cam->SetPosition(0, -0.35, 1);  // from above the slice, tilted so the plane reads as a plane
  cam->SetViewUp(0, 1, 0);
  renderer()->ResetCamera();
  cam->Zoom(1.15);
  renderer()->ResetCameraClippingRange();
  update();
}

void VesselTreeView::mousePressEvent(QMouseEvent* e) {
  pressPos_ = e->position().toPoint();
  VtkOpenGLWidget::mousePressEvent(e);
}

void VesselTreeView::mouseReleaseEvent(QMouseEvent* e) {
  VtkOpenGLWidget::mouseReleaseEvent(e);
  // A click (no drag) picks; a drag only rotated the view.
  if (e->button() == Qt::LeftButton && (e->position().toPoint() - pressPos_).manhattanLength() <= 3)
    pickAt(e->position().toPoint());
}

}  // namespace mrwb::ui
