#pragma once
// Whole files read and written by the suites (outputs checked byte for byte, inputs written for the CLI).
#include <QByteArray>
#include <QFile>
#include <QString>

#include <fstream>
#include <iterator>
#include <string>

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

}  // namespace mrwb::test
