#include "mrwb_ui/image_view.hpp"

#include <QFileInfo>
#include <QStringList>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkCommand.h>
#include <vtkCoordinate.h>
#include <vtkImageActor.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkInteractorStyleImage.h>
#include <vtkLookupTable.h>
#include <vtkScalarBarActor.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkTextRenderer.h>

#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {

constexpr int kTitleFontPx = 16;  // shrinks (to 10) and wraps in narrow views

// Signed maps: Moreland's cool-warm, grey at 0, so the sign of an error reads at a glance and equal
// |error| looks equally strong on both sides.
void fillDiverging(vtkLookupTable* lut) { fillLookupTable(lut, colormap::cool_warm_msh); }

// Sequential maps for magnitudes: "hot" reads well for |error|; viridis is perceptually uniform.
void fillSequential(vtkLookupTable* lut, ImageView::Colormap map) {
  fillLookupTable(lut, map == ImageView::Colormap::Hot       ? colormap::hot
                       : map == ImageView::Colormap::Viridis ? colormap::viridis
                                                             : colormap::grey);
}

// VTK's embedded Arial differs from the Qt UI font and spaces glyphs like '|' oddly; use the
// system's DejaVu Sans (Qt's default on Debian) when present.
void applyFont(vtkTextProperty* p, bool bold) {
  const QString file = bold ? QStringLiteral("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
                            : QStringLiteral("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
  if (QFileInfo::exists(file)) {
    p->SetFontFamily(VTK_FONT_FILE);
    p->SetFontFile(file.toLocal8Bit().constData());
  } else {
    p->SetFontFamilyToArial();
  }
}

void styleText(vtkTextActor* t, int size, const double color[3], bool bold) {
  styleVtkText(t->GetTextProperty(), size, color, bold);
}

// Width in pixels of `text` drawn with `prop` at its font size (0 when VTK cannot measure it).
int textWidthPx(vtkTextProperty* prop, const QString& text, int dpi) {
  vtkTextRenderer* renderer = vtkTextRenderer::GetInstance();
  int bbox[4] = {0, 0, 0, 0};
  if (!renderer || text.isEmpty() || !renderer->GetBoundingBox(prop, text.toStdString(), bbox, dpi)) return 0;
  return bbox[1] - bbox[0] + 1;
}

// `text` broken at spaces into lines no wider than `widthPx` (a single word wider than that keeps its line).
QStringList wrapWords(vtkTextProperty* prop, const QString& text, int widthPx, int dpi) {
  QStringList lines;
  for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
    QString line;
    for (const QString& word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
      if (!line.isEmpty() && textWidthPx(prop, longer, dpi) > widthPx) {
        lines << line;
        line = word;
      } else {
        line = longer;
      }
    }
    lines << line;
  }
  return lines;
}

// Sets `text` on `actor` so it fits `widthPx` (a narrow view, e.g. three panes side by side): with
// `oneLineFirst` (a short view, where a second line would cover the image), one line at the largest font
// size down to 3/4 of `size`; else the largest size down to `minSize` at which it takes at most two
// lines, broken at spaces; else `minSize` and as many lines as it needs. `widthPx` <= 0 (size not known
// yet): one line at `size`.
void fitText(vtkTextActor* actor, const QString& text, int size, int minSize, int widthPx, int dpi,
             bool oneLineFirst) {
  vtkTextProperty* prop = actor->GetTextProperty();
  prop->SetFontSize(size);
  QStringList lines{text};
  if (widthPx > 0) {
    const int oneLineMin = oneLineFirst ? std::max(minSize, (3 * size + 3) / 4) : size + 1;
    int s = size;
    for (; s >= oneLineMin && textWidthPx(prop, text, dpi) > widthPx; --s) prop->SetFontSize(s - 1);
    if (s < oneLineMin) {
      for (s = size; s >= minSize; --s) {
        prop->SetFontSize(s);
        lines = wrapWords(prop, text, widthPx, dpi);
        if (lines.size() <= 2) break;
      }
    }
  }
  actor->SetInput(lines.join(QLatin1Char('\n')).toUtf8().constData());
}

}  // namespace

void fillLookupTable(vtkLookupTable* lut, colormap::Rgb8 (*map)(double)) {
  const int n = 256;
  lut->SetNumberOfTableValues(n);
  for (int i = 0; i < n; ++i) {
    const colormap::Rgb8 c = map(static_cast<double>(i) / (n - 1));
    lut->SetTableValue(i, c.r / 255.0, c.g / 255.0, c.b / 255.0, 1.0);
  }
  lut->Build();
}

void styleColorbar(vtkScalarBarActor* bar, double x, double y, double w, double h) {
  bar->SetOrientationToVertical();
  bar->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  bar->GetPositionCoordinate()->SetValue(x, y);
  bar->SetWidth(w);
  bar->SetHeight(h);
  bar->SetNumberOfLabels(5);
  bar->SetBarRatio(0.25);
  bar->UnconstrainedFontSizeOn();
  styleVtkText(bar->GetLabelTextProperty(), 12, kVtkInfoRgb, false);
  styleVtkText(bar->GetTitleTextProperty(), 13, kVtkTitleRgb, true);
}

void styleVtkText(vtkTextProperty* p, int size, const double rgb[3], bool bold) {
  applyFont(p, bold);
  p->SetFontSize(size);
  p->SetColor(rgb[0], rgb[1], rgb[2]);
  p->SetBold(bold);
  p->SetItalic(false);
  p->SetShadow(false);
}

ImageView::ImageView(const QString& title, QWidget* parent) : VtkOpenGLWidget(parent) {
  vtkRenderer* ren = renderer();
  ren->GradientBackgroundOn();
  ren->SetBackground(0.07, 0.08, 0.09);
  ren->SetBackground2(0.16, 0.17, 0.20);

  actor_->SetInputData(image_);
  actor_->GetProperty()->SetInterpolationTypeToNearest();  // show voxels as they are, no smoothing
  actor_->VisibilityOff();
  ren->AddViewProp(actor_);

  fillDiverging(divergingLut_);
  fillSequential(magnitudeLut_, Colormap::Grey);
  colorbar_->SetLookupTable(divergingLut_);
  styleColorbar(colorbar_, 0.77, 0.10, 0.20, 0.76);
  colorbar_->SetLabelFormat("%+.2g");
  colorbar_->SetBarRatio(0.22);
  colorbar_->VisibilityOff();
  ren->AddViewProp(colorbar_);

  styleText(titleText_, kTitleFontPx, kVtkTitleRgb, true);
  titleText_->GetTextProperty()->SetJustificationToCentered();
  titleText_->GetTextProperty()->SetVerticalJustificationToTop();
  titleText_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  titleText_->GetPositionCoordinate()->SetValue(0.5, 0.975);
  ren->AddViewProp(titleText_);

  styleText(infoText_, 12, kVtkInfoRgb, false);
  infoText_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  infoText_->GetPositionCoordinate()->SetValue(0.015, 0.015);
  ren->AddViewProp(infoText_);

  styleText(hintText_, 14, kVtkInfoRgb, false);
  hintText_->GetTextProperty()->SetJustificationToCentered();
  hintText_->GetTextProperty()->SetVerticalJustificationToCentered();
  hintText_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  hintText_->GetPositionCoordinate()->SetValue(0.5, 0.5);
  ren->AddViewProp(hintText_);

  {  // the region of interest: a closed outline above the image plane
    vtkNew<vtkPoints> pts;
    for (int i = 0; i < 5; ++i) pts->InsertNextPoint(0, 0, 1);
    vtkNew<vtkCellArray> line;
    line->InsertNextCell(5);
    for (vtkIdType i = 0; i < 5; ++i) line->InsertCellPoint(i);
    roiOutline_->SetPoints(pts);
    roiOutline_->SetLines(line);
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputData(roiOutline_);
    roiActor_->SetMapper(mapper);
    roiActor_->GetProperty()->SetColor(1.0, 0.84, 0.2);
    roiActor_->GetProperty()->SetLineWidth(2);
    roiActor_->VisibilityOff();
    ren->AddViewProp(roiActor_);
  }

  style_->SetInteractionModeToImage2D();
  interactor()->SetInteractorStyle(style_);
  // Keep the W/L readout live while the user drags. (Observing WindowLevelEvent instead would
  // replace the style's own window/level handling.)
  style_->AddObserver(vtkCommand::InteractionEvent, this, &ImageView::onWindowLevel);

  setToolTip(tr("Left drag: window/level · Wheel or right drag: zoom · "
                "Middle or Shift+left drag: pan · Ctrl+left drag: region of interest (mean, SD, SNR) · "
                "Double-click: reset view"));
  setTitle(title);
  clearImage();
}

ImageView::~ImageView() { style_->RemoveAllObservers(); }

void ImageView::setTitle(const QString& title) {
  title_ = title;
  layoutTexts();
  update();
}

void ImageView::layoutTexts() {
  const int dpi = renderWindow()->GetDPI();
  const int width = viewportWidth_;
  const bool shortView = viewportHeight_ < 2 * width;
  fitText(titleText_, title_, kTitleFontPx, 10, static_cast<int>(0.96 * width), dpi, shortView);
  fitText(hintText_, hint_, 14, 10, static_cast<int>(0.92 * width), dpi, false);
  fitText(infoText_, info_, 12, 9, static_cast<int>(0.97 * width), dpi, true);
}

int ImageView::titleWidthPx() const {
  int widest = 0;
  const QString shown = QString::fromUtf8(titleText_->GetInput() ? titleText_->GetInput() : "");
  for (const QString& line : shown.split(QLatin1Char('\n')))
    widest = std::max(widest, textWidthPx(titleText_->GetTextProperty(), line, renderWindow()->GetDPI()));
  return widest;
}

int ImageView::titleLineCount() const {
  return QString::fromUtf8(titleText_->GetInput() ? titleText_->GetInput() : "").count(QLatin1Char('\n')) + 1;
}

void ImageView::clearImage(const QString& hint) {
  roi_.reset();
  roiActor_->VisibilityOff();
  hasImage_ = false;
  actor_->VisibilityOff();
  colorbar_->VisibilityOff();
  info_.clear();
  hint_ = hint.isEmpty() ? tr("No image yet. Press Run.") : hint;
  layoutTexts();
  hintText_->VisibilityOn();
  update();
}

void ImageView::setImage(const std::vector<float>& values, int nx, int ny, bool signedColormap,
                         const QString& title, std::optional<std::pair<double, double>> range) {
  if (nx <= 0 || ny <= 0 || values.size() != static_cast<std::size_t>(nx) * ny) {
    clearImage(tr("Image size mismatch (%1 values for %2 x %3)").arg(values.size()).arg(nx).arg(ny));
    return;
  }
  if (nx != nx_ || ny != ny_) clearRoi();  // a new size: the region no longer means the same place
  nx_ = nx;
  ny_ = ny;
  signed_ = signedColormap;

  // Row 0 is y = -FOV/2; VTK's layout is bottom-up too, so +y points up on screen, as in the PNG
  // files core writes.
  image_->SetDimensions(nx, ny, 1);
  image_->SetOrigin(0, 0, 0);
  image_->SetSpacing(1, 1, 1);
  image_->AllocateScalars(VTK_FLOAT, 1);
  std::copy(values.begin(), values.end(), static_cast<float*>(image_->GetScalarPointer()));
  image_->Modified();

  double lo = 0, hi = 1;
  if (range) {
    std::tie(lo, hi) = *range;
  } else {
    double vmin = std::numeric_limits<double>::max(), vmax = std::numeric_limits<double>::lowest();
    double amax = 0;
    for (float v : values) {
      if (!std::isfinite(v)) continue;
      vmin = std::min<double>(vmin, v);
      vmax = std::max<double>(vmax, v);
      amax = std::max<double>(amax, std::abs(v));
    }
    if (vmin > vmax) vmin = vmax = 0;
    if (signedColormap) {
      lo = -amax;
      hi = amax;
    } else {
      lo = std::min(0.0, vmin);  // magnitudes: anchor black at 0 so intensities compare across views
      hi = vmax;
    }
  }
  if (!(hi > lo)) {  // flat image: any non-empty window
    const double c = signedColormap ? 0.0 : lo;
    const double halfWidth = std::max(1e-12, std::abs(c) * 1e-3);
    lo = c - halfWidth;
    hi = c + halfWidth;
  }
  initialWindow_ = hi - lo;
  initialLevel_ = 0.5 * (hi + lo);

  vtkImageProperty* prop = actor_->GetProperty();
  prop->SetColorWindow(initialWindow_);
  prop->SetColorLevel(initialLevel_);
  applyColormap();

  actor_->VisibilityOn();
  hintText_->VisibilityOff();
  hasImage_ = true;
  ++updateCount_;
  if (roi_) roi_ = mrwb::region_stats(values, nx_, ny_, roi_->x0, roi_->y0, roi_->x1, roi_->y1);  // same place, new image
  setTitle(title);
  updateInfoText();
  fitCamera();
  lastState_ = viewState();
  update();
}

// W/L still applies with a table: the mapper maps [level - window/2, level + window/2] onto it, and
// the colorbar follows the table (its range is kept equal to the window in updateInfoText).
void ImageView::applyColormap() {
  vtkImageProperty* prop = actor_->GetProperty();
  if (signed_) {
    prop->SetLookupTable(divergingLut_);
    prop->UseLookupTableScalarRangeOff();
    colorbar_->SetLookupTable(divergingLut_);
    colorbar_->SetLabelFormat("%+.2g");
  } else if (colormap_ == Colormap::Grey && !colorbarVisible_) {
    prop->SetLookupTable(nullptr);  // VTK's own grey mapping, as before colormaps existed
  } else {
    prop->SetLookupTable(magnitudeLut_);
    prop->UseLookupTableScalarRangeOff();
    colorbar_->SetLookupTable(magnitudeLut_);
    colorbar_->SetLabelFormat("%.2g");
  }
  colorbar_->SetVisibility(colorbarShown());
}

void ImageView::setColormap(Colormap map) {
  colormap_ = map;
  fillSequential(magnitudeLut_, map);
  if (actor_->GetVisibility()) {
    applyColormap();
    updateInfoText();
    fitCamera();
  }
  update();
}

void ImageView::setColorbarVisible(bool visible) {
  colorbarVisible_ = visible;
  if (actor_->GetVisibility()) {
    applyColormap();
    updateInfoText();
    fitCamera();
    lastState_ = viewState();
  }
  update();
}

ImageView::ViewState ImageView::viewState() const {
  ViewState s;
  vtkCamera* cam = renderer()->GetActiveCamera();
  double f[3];
  cam->GetFocalPoint(f);
  s.zoom = fitScale_ / cam->GetParallelScale();
  s.pan_x = f[0] - fitFocalX_;
  s.pan_y = f[1] - fitFocalY_;
  s.window = colorWindow();
  s.level = colorLevel();
  return s;
}

void ImageView::setViewState(const ViewState& s, bool withWindowLevel) {
  vtkCamera* cam = renderer()->GetActiveCamera();
  double p[3];
  cam->GetPosition(p);
  const double fx = fitFocalX_ + s.pan_x, fy = fitFocalY_ + s.pan_y;
  cam->SetFocalPoint(fx, fy, 0);
  cam->SetPosition(fx, fy, p[2]);
  cam->SetParallelScale(fitScale_ / s.zoom);
  renderer()->ResetCameraClippingRange();
  if (withWindowLevel) {
    actor_->GetProperty()->SetColorWindow(s.window);
    actor_->GetProperty()->SetColorLevel(s.level);
    updateInfoText();
  }
  lastState_ = viewState();
  update();
}

std::vector<float> ImageView::values() const {
  if (!hasImage_) return {};
  const auto* p = static_cast<const float*>(image_->GetScalarPointer());
  return std::vector<float>(p, p + static_cast<std::size_t>(nx_) * ny_);
}

void ImageView::emitIfUserChanged() {
  const ViewState now = viewState();
  const bool camera = now.zoom != lastState_.zoom || now.pan_x != lastState_.pan_x || now.pan_y != lastState_.pan_y;
  const bool wl = now.window != lastState_.window || now.level != lastState_.level;
  lastState_ = now;
  if (camera) emit cameraChanged();
  if (wl) emit windowLevelChanged();
}

void ImageView::mousePressEvent(QMouseEvent* e) {
  if (hasImage_ && e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier)) {
    roiDragging_ = true;
    roiStart_ = pixelAt(e->position());
    e->accept();
    return;
  }
  VtkOpenGLWidget::mousePressEvent(e);
}

void ImageView::mouseMoveEvent(QMouseEvent* e) {
  if (roiDragging_) {
    const QPoint p = pixelAt(e->position());
    showRoiOutline(std::min(roiStart_.x(), p.x()), std::min(roiStart_.y(), p.y()), std::max(roiStart_.x(), p.x()) + 1,
                   std::max(roiStart_.y(), p.y()) + 1);
    update();
    e->accept();
    return;
  }
  VtkOpenGLWidget::mouseMoveEvent(e);
  emitIfUserChanged();
}

void ImageView::mouseReleaseEvent(QMouseEvent* e) {
  if (roiDragging_) {
    roiDragging_ = false;
    const QPoint p = pixelAt(e->position());
    // Both corner pixels are inside the region.
    setRoi(std::min(roiStart_.x(), p.x()), std::min(roiStart_.y(), p.y()), std::max(roiStart_.x(), p.x()) + 1,
           std::max(roiStart_.y(), p.y()) + 1);
    e->accept();
    return;
  }
  VtkOpenGLWidget::mouseReleaseEvent(e);
  emitIfUserChanged();
}

QPoint ImageView::pixelAt(const QPointF& pos) const {
  const QRectF r = imageRectPx();
  if (!hasImage_ || r.width() <= 0 || r.height() <= 0) return {};
  const double dpr = devicePixelRatioF();
  // The rectangle spans the voxel edges: world x = -0.5 + (px - left) / width * nx (y up from the bottom edge).
  const double wx = -0.5 + (pos.x() * dpr - r.left()) / r.width() * nx_;
  const double wy = -0.5 + (r.bottom() - pos.y() * dpr) / r.height() * ny_;
  return {static_cast<int>(std::floor(wx + 0.5)), static_cast<int>(std::floor(wy + 0.5))};
}

void ImageView::showRoiOutline(int x0, int y0, int x1, int y1) {
  const double xs[5] = {x0 - 0.5, x1 - 0.5, x1 - 0.5, x0 - 0.5, x0 - 0.5};
  const double ys[5] = {y0 - 0.5, y0 - 0.5, y1 - 0.5, y1 - 0.5, y0 - 0.5};
  for (int i = 0; i < 5; ++i) roiOutline_->GetPoints()->SetPoint(i, xs[i], ys[i], 1);
  roiOutline_->GetPoints()->Modified();
  roiOutline_->Modified();
  roiActor_->VisibilityOn();
}

void ImageView::setRoi(int x0, int y0, int x1, int y1) {
  if (!hasImage_) return;
  const mrwb::RegionStats st = mrwb::region_stats(values(), nx_, ny_, x0, y0, x1, y1);
  if (st.pixels == 0) {
    clearRoi();
    return;
  }
  roi_ = st;
  showRoiOutline(st.x0, st.y0, st.x1, st.y1);
  updateInfoText();
  update();
  emit roiChanged();
}

void ImageView::clearRoi() {
  if (!roi_) return;
  roi_.reset();
  roiActor_->VisibilityOff();
  updateInfoText();
  update();
  emit roiChanged();
}

void ImageView::wheelEvent(QWheelEvent* e) {
  VtkOpenGLWidget::wheelEvent(e);
  emitIfUserChanged();
}

void ImageView::resetView() {
  if (!hasImage_) return;
  actor_->GetProperty()->SetColorWindow(initialWindow_);
  actor_->GetProperty()->SetColorLevel(initialLevel_);
  updateInfoText();
  fitCamera();
  update();
}

bool ImageView::windowLevelChangedByUser() const {
  return hasImage_ && (colorWindow() != initialWindow_ || colorLevel() != initialLevel_);
}

double ImageView::colorWindow() const { return actor_->GetProperty()->GetColorWindow(); }
double ImageView::colorLevel() const { return actor_->GetProperty()->GetColorLevel(); }
double ImageView::parallelScale() const { return renderer()->GetActiveCamera()->GetParallelScale(); }

void ImageView::viewportResized(int w, int h) {
  viewportWidth_ = w;
  viewportHeight_ = h;
  layoutTexts();
  fitCamera();
}

void ImageView::mouseDoubleClickEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    resetView();
    emitIfUserChanged();
    e->accept();
    return;
  }
  VtkOpenGLWidget::mouseDoubleClickEvent(e);
}

void ImageView::onWindowLevel() {
  updateInfoText();
}

void ImageView::updateInfoText() {
  if (!hasImage_) return;
  const double w = actor_->GetProperty()->GetColorWindow();
  const double l = actor_->GetProperty()->GetColorLevel();
  divergingLut_->SetRange(l - 0.5 * w, l + 0.5 * w);
  magnitudeLut_->SetRange(l - 0.5 * w, l + 0.5 * w);
  const QString text = signed_ ? tr("%1 x %2   range %3 .. %4")
                                     .arg(nx_)
                                     .arg(ny_)
                                     .arg(l - 0.5 * w, 0, 'g', 3)
                                     .arg(l + 0.5 * w, 0, 'g', 3)
                               : tr("%1 x %2   W %3  L %4").arg(nx_).arg(ny_).arg(w, 0, 'g', 3).arg(l, 0, 'g', 3);
  info_ = roi_ ? text + tr("   ROI %1x%2: mean %3  SD %4  SNR %5")
                             .arg(roi_->x1 - roi_->x0)
                             .arg(roi_->y1 - roi_->y0)
                             .arg(roi_->mean, 0, 'g', 3)
                             .arg(roi_->sd, 0, 'g', 3)
                             .arg(roi_->snr(), 0, 'g', 3)
               : text;
  layoutTexts();
}

void ImageView::fitCamera() {
  if (!hasImage_) return;
  const int* size = renderWindow()->GetSize();
  const int W = std::max(1, size[0]), H = std::max(1, size[1]);
  const double aspect = static_cast<double>(W) / H;
  // Fractions of the viewport: the title takes the top 10 %, the info line the bottom 6 %, a colorbar the
  // right side (wide views) or a strip above the info line (narrow views), whichever leaves the image
  // larger. Its labels are measured at their widest ("-8.8e-88", %+.2g) so none is ever cut off.
  const double bottom = 0.06, top = bottom + kImageHeightShare;
  double x0 = 0.5 * (1 - kImageWidthShare), x1 = 1 - x0, y0 = bottom;
  const double w = nx_, h = ny_;  // voxel edges span [-0.5, n - 0.5]
  auto scale_for = [&](double fx, double fy) { return std::max(h / (2 * fy), w / (2 * fx * aspect)); };
  colorbarHorizontal_ = false;
  if (colorbarShown()) {
    const int dpi = renderWindow()->GetDPI();
    const int labelPx = std::max(40, textWidthPx(colorbar_->GetLabelTextProperty(), QStringLiteral("-8.8e-88"), dpi));
    const int labelH = colorbar_->GetLabelTextProperty()->GetFontSize() + 6;
    const int barPx = 14, pad = 8;
    const double vw = static_cast<double>(barPx + pad + labelPx + pad) / W;  // vertical: bar, gap, labels, margin
    const double hh = static_cast<double>(barPx + labelH + pad) / H;          // horizontal: bar, labels below
    const double sV = scale_for(x1 - x0 - vw, top - bottom), sH = scale_for(x1 - x0, top - bottom - hh);
    colorbarHorizontal_ = sH < sV;
    if (colorbarHorizontal_) {
      const double side = (0.5 * labelPx + pad) / W;  // the end labels sit centred on the bar's ends
      colorbar_->SetOrientationToHorizontal();
      colorbar_->GetPositionCoordinate()->SetValue(side, bottom);
      colorbar_->SetWidth(1 - 2 * side);
      colorbar_->SetHeight(hh);
      colorbar_->SetBarRatio(static_cast<double>(barPx) / (hh * H));
      colorbar_->SetTextPositionToPrecedeScalarBar();  // labels under the bar
      // As many labels as fit side by side without touching (the ends always).
      const double barWidthPx = (1 - 2 * side) * W;
      colorbar_->SetNumberOfLabels(std::clamp(1 + static_cast<int>(barWidthPx / (labelPx + 6)), 2, 5));
      y0 = bottom + hh;
    } else {
      colorbar_->SetOrientationToVertical();
      colorbar_->GetPositionCoordinate()->SetValue(1 - vw, 0.10);
      colorbar_->SetWidth(vw - static_cast<double>(pad) / W);
      colorbar_->SetHeight(0.76);
      colorbar_->SetBarRatio(static_cast<double>(barPx) / (vw * W - pad));
      colorbar_->SetTextPositionToSucceedScalarBar();  // labels right of the bar
      colorbar_->SetNumberOfLabels(5);
      x1 = 1 - vw;
    }
  }
  const double scale = scale_for(x1 - x0, top - y0);
  if (colorbarHorizontal_) {  // right under the image rather than at the view's foot
    const double image_bottom = 0.5 * (y0 + top) - h / (4 * scale);
    colorbar_->GetPositionCoordinate()->SetValue(colorbar_->GetPositionCoordinate()->GetValue()[0],
                                                 std::max(bottom, image_bottom - (y0 - bottom) - 0.01));
  }
  // The image centred in [x0, x1] x [y0, top]: the view's centre (0.5, 0.5) looks at the world point
  // image centre + (0.5 - region centre) x the view's world size.
  const double cx = 0.5 * (nx_ - 1) + (0.5 - 0.5 * (x0 + x1)) * 2 * scale * aspect;
  const double cy = 0.5 * (ny_ - 1) + (0.5 - 0.5 * (y0 + top)) * 2 * scale;

  vtkCamera* cam = renderer()->GetActiveCamera();
  cam->ParallelProjectionOn();
  cam->SetFocalPoint(cx, cy, 0);
  cam->SetPosition(cx, cy, 1000);
  cam->SetViewUp(0, 1, 0);
  cam->SetParallelScale(scale);
  renderer()->ResetCameraClippingRange();
  fitScale_ = scale;
  fitFocalX_ = cx;
  fitFocalY_ = cy;
  lastState_ = viewState();  // a refit is not a user change to propagate
}

QRectF ImageView::imageRectPx() const {
  if (!hasImage_) return {};
  const int* size = renderWindow()->GetSize();
  const double W = std::max(1, size[0]), H = std::max(1, size[1]);
  vtkCamera* cam = renderer()->GetActiveCamera();
  double f[3];
  cam->GetFocalPoint(f);
  const double ppu = H / (2 * cam->GetParallelScale());  // device pixels per voxel
  const double left = W / 2 + (-0.5 - f[0]) * ppu, right = W / 2 + (nx_ - 0.5 - f[0]) * ppu;
  const double lower = H / 2 + (-0.5 - f[1]) * ppu, upper = H / 2 + (ny_ - 0.5 - f[1]) * ppu;
  return QRectF(QPointF(left, H - upper), QPointF(right, H - lower));  // y down, as Qt draws
}

}  // namespace mrwb::ui
