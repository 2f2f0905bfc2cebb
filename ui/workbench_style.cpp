#include "mrwb_ui/workbench_style.hpp"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

namespace mrwb::ui {

void applyWorkbenchStyle(QApplication& app) {
  // Fusion looks the same on every platform and honours the palette fully (native styles may not).
  if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"))) app.setStyle(fusion);

  const QColor window(0x2b, 0x2d, 0x31);
  const QColor base(0x1f, 0x21, 0x24);
  const QColor text(0xe6, 0xe8, 0xeb);
  const QColor dim(0x8a, 0x8f, 0x98);
  const QColor accent(0x3d, 0x8e, 0xd8);

  QPalette p;
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window.lighter(110));
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, dim);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window.lighter(115));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
  p.setColor(QPalette::Link, accent.lighter(120));
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Light, window.lighter(150));
  p.setColor(QPalette::Midlight, window.lighter(125));
  p.setColor(QPalette::Mid, window.darker(120));
  p.setColor(QPalette::Dark, window.darker(150));
  p.setColor(QPalette::Shadow, Qt::black);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    p.setColor(QPalette::Disabled, role, dim);
  }
  p.setColor(QPalette::Disabled, QPalette::Highlight, window.lighter(130));
  app.setPalette(p);

  app.setStyleSheet(QStringLiteral(
      "QGroupBox { font-weight: bold; border: 1px solid #44474d; border-radius: 5px;"
      "  margin-top: 1.1em; padding-top: 4px; }"
      "QGroupBox::title { subcontrol-origin: margin; left: 8px; padding: 0 4px; color: #9fc3ea; }"
      "QDockWidget::title { padding: 5px; background: #24262a; }"
      "QToolBar { spacing: 6px; padding: 3px; border: none; }"
      "QProgressBar { border: 1px solid #44474d; border-radius: 3px; text-align: center; background: #1f2124; }"
      "QProgressBar::chunk { background: #3d8ed8; border-radius: 2px; }"
      "QTableWidget { gridline-color: #3a3d42; }"
      "QSplitter::handle { background: #1a1b1e; }"));
}

}  // namespace mrwb::ui
