#pragma once
// A 2-D float image shown through VTK: grey window/level for magnitudes, or a diverging colormap
// symmetric around 0 with a colorbar for signed maps (error maps). Left drag: window/level,
// wheel / right drag: zoom, middle or Shift+left drag: pan, double-click: reset the view.
// The view only maps data that core produced; it computes nothing but display ranges.
#include <QString>
#include <optional>
#include <utility>
#include <vector>

#include <vtkNew.h>

#include "mrwb_ui/vtk_opengl_widget.hpp"

class vtkImageActor;
class vtkImageData;
class vtkInteractorStyleImage;
class vtkLookupTable;
class vtkScalarBarActor;
class vtkTextActor;

namespace mrwb::ui {

class ImageView : public VtkOpenGLWidget {
  Q_OBJECT
 public:
  explicit ImageView(const QString& title = {}, QWidget* parent = nullptr);
  ~ImageView() override;

  // values: nx*ny, row-major, ny rows of nx (row 0 at the bottom: +y up). signedColormap: diverging
  // colormap symmetric around 0 and a colorbar. range: display range; default min..max (magnitude
  // from 0) or ±max|v| (signed).
  void setImage(const std::vector<float>& values, int nx, int ny, bool signedColormap,
                const QString& title, std::optional<std::pair<double, double>> range = std::nullopt);
  // Back to the empty state (title and a hint, no image).
  void clearImage(const QString& hint = {});

  void setTitle(const QString& title);
  QString title() const { return title_; }
  bool hasImage() const { return hasImage_; }
  // Counts setImage calls, so tests can check a view was (not) updated.
  quint64 updateCount() const { return updateCount_; }
  // Current display window / level (changed by left drag) and camera zoom (wheel).
  double colorWindow() const;
  double colorLevel() const;
  double parallelScale() const;

 public slots:
  void resetView();

 protected:
  void viewportResized(int w, int h) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;

 private:
  void fitCamera();
  void updateInfoText();
  void onWindowLevel();

  QString title_;
  bool hasImage_ = false;
  bool signed_ = false;
  int nx_ = 0, ny_ = 0;
  double initialWindow_ = 1, initialLevel_ = 0.5;
  quint64 updateCount_ = 0;

  vtkNew<vtkImageData> image_;
  vtkNew<vtkImageActor> actor_;
  vtkNew<vtkLookupTable> divergingLut_;
  vtkNew<vtkScalarBarActor> colorbar_;
  vtkNew<vtkTextActor> titleText_;
  vtkNew<vtkTextActor> infoText_;
  vtkNew<vtkTextActor> hintText_;
  vtkNew<vtkInteractorStyleImage> style_;
};

}  // namespace mrwb::ui
