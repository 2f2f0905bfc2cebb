#pragma once
// The scenario's vessel tree in 3-D (VTK in our Qt bridge): tubes (vtkTubeFilter, radius from the
// tree) coloured by lumen radius or by the Poiseuille mean velocity of each segment (core flow:
// poiseuille_split), a colorbar, the tissue region (disc, or the organ ellipse / ellipsoid), aneurysm
// sacs, and the imaging slice z = 0 as a translucent plane over the FOV. A left click without drag
// picks a segment (vtkCellPicker): it is highlighted and segmentPicked(index) is emitted.
// Left drag rotates, right drag / wheel zooms, middle drag pans.
#include <QPoint>
#include <QString>
#include <vector>

#include <vtkNew.h>

#include "mrwb/phantom/vessel_tree.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

class vtkActor;
class vtkCellPicker;
class vtkLookupTable;
class vtkScalarBarActor;
class vtkTextActor;

namespace mrwb::ui {

class VesselTreeView : public VtkOpenGLWidget {
  Q_OBJECT
 public:
  enum class ColorBy { Radius, Velocity };
  explicit VesselTreeView(QWidget* parent = nullptr);
  ~VesselTreeView() override;

  // Rebuilds the scene from the scenario (core: scenario_vessel_tree, poiseuille_split). A scenario
  // without vessels (uniform_disc) or a tree core rejects shows the tissue and a message.
  void setScenario(const mrwb::Scenario& scenario);
  void setColorBy(ColorBy by);
  ColorBy colorBy() const { return colorBy_; }

  int segmentCount() const { return static_cast<int>(tree_.segments.size()); }
  const mrwb::VesselTree& tree() const { return tree_; }
  // Per segment: mean lumen radius [m] and Poiseuille mean velocity Q / (pi r^2) [m/s].
  const std::vector<double>& segmentRadius() const { return radius_m_; }
  const std::vector<double>& segmentVelocity() const { return velocity_m_per_s_; }
  int selectedSegment() const { return selected_; }
  // Segment edits renumber (a removed branch): a shown segment's index in the generated tree, and back
  // (-1 when none / removed). Scenario segment_edits use generated indices.
  int generatedIndex(int s) const;
  int shownIndex(int generated) const;
  // One line about shown segment s (generated index, mean radius, length, mean velocity, children).
  QString segmentInfo(int s) const;
  QString message() const { return message_; }

  // Picks at a widget position (logical pixels); returns the segment or -1. Emits segmentPicked when
  // a segment is hit.
  int pickAt(const QPoint& pos);
  // Highlights a segment (-1: none) without emitting.
  void selectSegment(int segment);
  // Widget position (logical pixels) where segment s's middle point is drawn (for tests and tours).
  QPoint segmentScreenPosition(int s);

 public slots:
  void resetCamera();

 signals:
  void segmentPicked(int segment);

 protected:
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;

 private:
  void rebuildTubes();
  void rebuildContext();
  void rebuildHighlight();

  mrwb::Scenario scenario_;
  mrwb::VesselTree tree_;
  std::vector<int> generated_;  // per shown segment: its index in the generated tree
  std::vector<double> radius_m_, velocity_m_per_s_;
  ColorBy colorBy_ = ColorBy::Radius;
  int selected_ = -1;
  QString message_;
  QPoint pressPos_;

  vtkNew<vtkActor> tubes_;
  vtkNew<vtkActor> highlight_;
  vtkNew<vtkActor> sacs_;
  vtkNew<vtkActor> tissue_;
  vtkNew<vtkActor> slice_;
  vtkNew<vtkLookupTable> lut_;
  vtkNew<vtkScalarBarActor> colorbar_;
  vtkNew<vtkTextActor> titleText_;
  vtkNew<vtkCellPicker> picker_;
};

}  // namespace mrwb::ui
