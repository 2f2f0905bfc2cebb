#include "mrwb_ui/autosave.hpp"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

#include "mrwb_ui/scenario_document.hpp"

namespace mrwb::ui {

Autosave::Autosave(ScenarioDocument* doc, QObject* parent) : QObject(parent), doc_(doc), timer_(new QTimer(this)) {
  timer_->setInterval(kDefaultIntervalMs);
  connect(timer_, &QTimer::timeout, this, [this] { saveNow(); });
  timer_->start();
  // A saved document has nothing to recover; its old autosave would only confuse the next start.
  connect(doc_, &ScenarioDocument::dirtyChanged, this, [this](bool dirty) {
    if (!dirty) discard();
  });
}

void Autosave::setIntervalMs(int ms) { timer_->start(ms); }

int Autosave::intervalMs() const { return timer_->interval(); }

QString Autosave::autosavePathFor(const QString& documentPath) {
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
  QString key = QStringLiteral("untitled");
  if (!documentPath.isEmpty()) {
    const QString abs = QFileInfo(documentPath).absoluteFilePath();
    const QByteArray hash = QCryptographicHash::hash(abs.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    key = QFileInfo(abs).completeBaseName() + QLatin1Char('-') + QString::fromLatin1(hash);
  }
  return dir + QLatin1Char('/') + key + QStringLiteral(".json");
}

std::optional<QString> Autosave::recoverableFor(const QString& documentPath) {
  const QString autosave = autosavePathFor(documentPath);
  const QFileInfo a(autosave);
  if (!a.isFile()) return std::nullopt;
  if (!documentPath.isEmpty()) {
    const QFileInfo f(documentPath);
    if (f.isFile() && f.lastModified() >= a.lastModified()) return std::nullopt;
  }
  return autosave;
}

mrwb::Scenario Autosave::read(const QString& autosavePath) { return mrwb::load_scenario(autosavePath.toStdString()); }

QString Autosave::saveNow() {
  if (!doc_->isDirty()) return {};
  const QString path = autosavePathFor(doc_->path());
  if (!QDir().mkpath(QFileInfo(path).absolutePath())) return {};
  try {
    mrwb::save_scenario(doc_->scenario(), path.toStdString());  // atomic: temp file, then rename
  } catch (const std::exception&) {
    return {};  // autosave is best effort; the next tick tries again
  }
  lastWritten_ = path;
  emit autosaved(path);
  return path;
}

void Autosave::discard() {
  QFile::remove(autosavePathFor(doc_->path()));
  if (!lastWritten_.isEmpty()) QFile::remove(lastWritten_);
  lastWritten_.clear();
}

}  // namespace mrwb::ui
