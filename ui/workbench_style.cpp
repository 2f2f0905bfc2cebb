#include "mrwb_ui/workbench_style.hpp"

#include <QApplication>
#include <QFile>
#include <QIcon>
#include <QPalette>
#include <QStyleFactory>

#include "mrwb/base/raw_data.hpp"

// resources/mrwb.qrc is compiled into this static library, where nothing references it: register it
// explicitly (Q_INIT_RESOURCE may not stand inside a namespace).
static void registerWorkbenchResources() { Q_INIT_RESOURCE(mrwb); }

namespace mrwb::ui {

namespace {
void ensureResources() {
  static const bool registered = (registerWorkbenchResources(), true);
  (void)registered;
}
}  // namespace

QIcon applicationIcon() {
  ensureResources();
  QIcon icon;
  for (int size : {16, 32, 48, 64, 128, 256})
    icon.addFile(QStringLiteral(":/mrwb/icons/app/mrwb-%1.png").arg(size), QSize(size, size));
  return icon;
}

QIcon toolbarIcon(const QString& name) {
  ensureResources();
  QIcon icon;
  for (int size : {24, 48})
    icon.addFile(QStringLiteral(":/mrwb/icons/toolbar/%1-%2.png").arg(name).arg(size), QSize(size, size));
  return icon;
}

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

  ensureResources();
  QFile qss(QStringLiteral(":/mrwb/workbench.qss"));
  if (qss.open(QIODevice::ReadOnly | QIODevice::Text))
    app.setStyleSheet(QString::fromUtf8(qss.readAll()));
  else
    qWarning("mrwb: the stylesheet %s is missing from the resources", qPrintable(qss.fileName()));
}

QColor lineStatusColor(std::uint8_t flags) {
  if (flags & mrwb::kLineCalibration) return QColor(240, 160, 60);
  if (flags & mrwb::kLineAcquired) return QColor(90, 170, 250);
  return QColor(70, 74, 82);
}

}  // namespace mrwb::ui
