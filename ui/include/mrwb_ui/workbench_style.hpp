#pragma once
// The application's look: Fusion with a dark palette that matches the dark image views, the stylesheet
// resources/workbench.qss, and the icons of resources/ (compiled in from resources/mrwb.qrc).
#include <QColor>
#include <cstdint>

class QApplication;
class QIcon;
class QString;

namespace mrwb::ui {

void applyWorkbenchStyle(QApplication& app);
// The application icon at every rendered size (16 .. 256 px).
QIcon applicationIcon();
// A toolbar icon by name: new, open, save, undo, redo, run, cancel (24 and 48 px).
QIcon toolbarIcon(const QString& name);
// A phase-encode line's colour by its RawData line flags (kLineAcquired, kLineCalibration), shared by the
// views that mark lines (Trajectory, K-space): calibration orange, acquired blue, skipped grey.
QColor lineStatusColor(std::uint8_t flags);

// The dark views' colours, one set for every view: the QPainter plots' background, axes and text, and the VTK
// views' title and info text (RGB in [0, 1]).
inline const QColor kPlotBackground(24, 26, 30);
inline const QColor kPlotAxis(110, 116, 126);
inline const QColor kPlotText(200, 205, 212);
inline constexpr double kVtkTitleRgb[3] = {0.93, 0.94, 0.96};
inline constexpr double kVtkInfoRgb[3] = {0.68, 0.71, 0.76};
// The 3-D views draw their scenes in millimetres.
inline constexpr double kMmPerM = 1e3;

}  // namespace mrwb::ui
