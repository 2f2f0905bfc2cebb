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

}  // namespace mrwb::ui
