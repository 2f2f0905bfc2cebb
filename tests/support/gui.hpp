#pragma once
// What the GUI suites share (include only from suites that link mrwb_ui): the main window shown without
// dialogs.
#include <QTest>

#include "mrwb_ui/main_window.hpp"

namespace mrwb::test {

// Shows a non-interactive main window (no dialogs) and waits until it is on screen.
inline bool showQuietly(mrwb::ui::MainWindow& w) {
  w.setInteractive(false);
  w.show();
  return QTest::qWaitForWindowExposed(&w);
}

}  // namespace mrwb::test
