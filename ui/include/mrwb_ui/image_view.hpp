#pragma once
// A 2-D float image shown through VTK: grey window/level for magnitudes, or a diverging colormap
// symmetric around 0 with a colorbar for signed maps (error maps). Left drag: window/level,
// wheel / right drag: zoom, middle or Shift+left drag: pan, double-click: reset the view.
// The view only maps data that core produced; it computes nothing but display ranges.
// Views can be linked (ComparisonView): user zoom/pan emits cameraChanged, window/level emits
// windowLevelChanged, and setViewState applies another view's state without emitting.
#include <QPoint>
#include <QRectF>
#include <QString>
#include <optional>
#include <utility>
#include <vector>

#include <vtkNew.h>

#include "mrwb/io/colormap.hpp"
#include "mrwb/metrics/region_stats.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

class vtkActor;
class vtkImageActor;
class vtkPolyData;
class vtkImageData;
class vtkInteractorStyleImage;
class vtkLookupTable;
class vtkScalarBarActor;
class vtkTextActor;
class vtkTextProperty;

namespace mrwb::ui {

// The workbench's look for VTK text (DejaVu Sans like the Qt UI, no shadow); shared by all VTK views.
void styleVtkText(vtkTextProperty* p, int size, const double rgb[3], bool bold);
// A 256-entry table sampled from one of core's colormaps (mrwb/io/colormap.hpp) on [0, 1].
void fillLookupTable(vtkLookupTable* lut, colormap::Rgb8 (*map)(double));
// A vertical colorbar at (x, y) with size (w, h) in normalised viewport units, in the workbench style.
void styleColorbar(vtkScalarBarActor* bar, double x, double y, double w, double h);

class ImageView : public VtkOpenGLWidget {
  Q_OBJECT
 public:
  // Colour tables for unsigned images (signed images always use the diverging map).
  enum class Colormap { Grey, Hot, Viridis };
  // What linked views share: zoom and pan relative to each view's fitted camera (so panes with and
  // without a colorbar stay aligned), and window/level.
  struct ViewState {
    double zoom = 1;               // fitted scale / current scale
    double pan_x = 0, pan_y = 0;   // focal point minus the fitted one [voxels]
    double window = 1, level = 0.5;
  };

  // The share of a view an image without a colorbar fills at most: 96 % of its width (2 % each side), 84 % of
  // its height (the title's 10 % above, the info line's 6 % below). Grids of views size their cells by these.
  static constexpr double kImageWidthShare = 0.96, kImageHeightShare = 0.84;

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
  // The title as laid out for the view's width (tests: it must fit): its widest line in pixels and
  // its number of lines.
  int titleWidthPx() const;
  int titleLineCount() const;
  bool hasImage() const { return hasImage_; }
  // Counts setImage calls, so tests can check a view was (not) updated.
  quint64 updateCount() const { return updateCount_; }
  // Current display window / level (changed by left drag) and camera zoom (wheel).
  double colorWindow() const;
  double colorLevel() const;
  double parallelScale() const;

  Colormap colormap() const { return colormap_; }
  void setColormap(Colormap map);
  // Colorbar beside an unsigned image (e.g. an absolute error map); signed images always show one.
  void setColorbarVisible(bool visible);
  ViewState viewState() const;
  // Window / level differ from the ones setImage chose (the user dragged them).
  bool windowLevelChangedByUser() const;
  // Applies a linked view's camera (and window/level when withWindowLevel); emits nothing.
  void setViewState(const ViewState& state, bool withWindowLevel);
  // The displayed values (empty without an image) and their size, for export.
  std::vector<float> values() const;
  int imageWidth() const { return nx_; }
  // Where the image lies in the view, in device pixels (y down; may reach outside when zoomed or panned).
  QRectF imageRectPx() const;
  // Region of interest (Ctrl + left drag, or setRoi): pixels [x0, x1) x [y0, y1) of the image, its mean,
  // SD and SNR shown in the info line and kept across new images of the same size (a live update).
  void setRoi(int x0, int y0, int x1, int y1);
  void clearRoi();
  std::optional<mrwb::RegionStats> roiStats() const { return roi_; }
  // The image pixel under a widget position (x right, y up; may lie outside the image).
  QPoint pixelAt(const QPointF& widgetPos) const;
  // The colorbar runs under the image (narrow views) rather than beside it.
  bool colorbarHorizontal() const { return colorbarHorizontal_; }
  int imageHeight() const { return ny_; }

 public slots:
  void resetView();

 signals:
  void cameraChanged();       // the user zoomed or panned
  void windowLevelChanged();  // the user changed window/level
  void roiChanged();          // a region of interest was drawn or cleared

 protected:
  void viewportResized(int w, int h) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;

 private:
  void emitIfUserChanged();
  void applyColormap();
  bool colorbarShown() const { return signed_ || colorbarVisible_; }
  void fitCamera();
  void updateInfoText();
  void layoutTexts();  // title, hint and info line fitted to viewportWidth_
  void onWindowLevel();

  QString title_, hint_, info_;
  int viewportWidth_ = 0, viewportHeight_ = 0;  // device pixels; 0 until the first resize
  bool hasImage_ = false;
  bool signed_ = false;
  int nx_ = 0, ny_ = 0;
  double initialWindow_ = 1, initialLevel_ = 0.5;
  quint64 updateCount_ = 0;
  Colormap colormap_ = Colormap::Grey;
  bool colorbarVisible_ = false;
  bool colorbarHorizontal_ = false;
  std::optional<mrwb::RegionStats> roi_;
  bool roiDragging_ = false;
  QPoint roiStart_;
  void showRoiOutline(int x0, int y0, int x1, int y1);
  ViewState lastState_;  // as of the last emitted/applied change
  double fitScale_ = 1, fitFocalX_ = 0, fitFocalY_ = 0;  // camera set by fitCamera

  vtkNew<vtkImageData> image_;
  vtkNew<vtkImageActor> actor_;
  vtkNew<vtkLookupTable> divergingLut_;
  vtkNew<vtkLookupTable> magnitudeLut_;
  vtkNew<vtkScalarBarActor> colorbar_;
  vtkNew<vtkTextActor> titleText_;
  vtkNew<vtkTextActor> infoText_;
  vtkNew<vtkTextActor> hintText_;
  vtkNew<vtkInteractorStyleImage> style_;
  vtkNew<vtkPolyData> roiOutline_;  // the region of interest's rectangle, in image coordinates
  vtkNew<vtkActor> roiActor_;
};

}  // namespace mrwb::ui
