#pragma once
// The application's look: Fusion with a dark palette that matches the dark image views.
class QApplication;

namespace mrwb::ui {

void applyWorkbenchStyle(QApplication& app);

}  // namespace mrwb::ui
