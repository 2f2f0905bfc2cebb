#pragma once
// Whole files read and written by the suites (outputs checked byte for byte, inputs written for the CLI).
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <fstream>
#include <iterator>
#include <string>

#include "sanitizer_scale.hpp"

namespace mrwb::test {

// The whole content of the file at `path`, byte for byte; empty when it cannot be opened.
inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Writes `bytes` as the whole file at `path`; false when it cannot be opened for writing.
inline bool write_file(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return false;
  f.write(bytes);
  return true;
}

// The shipped default scenario (phantoms/default.json) for a CLI run. Under the sanitizer, a copy at matrix 64
// written into `dir` (the same field of view, flow and sequence; its flow steps run ten times slower there);
// empty when that copy cannot be written.
inline QString default_scenario_file(const QString& source_dir, const QString& dir) {
  const QString shipped = source_dir + "/phantoms/default.json";
  if (!sanitized()) return shipped;
  QFile f(shipped);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
  QJsonObject sequence = j["sequence"].toObject();
  sequence["matrix"] = 64;
  j["sequence"] = sequence;
  const QString copy = QDir(dir).filePath("default_matrix_64.json");
  return write_file(copy, QJsonDocument(j).toJson()) ? copy : QString();
}

}  // namespace mrwb::test
