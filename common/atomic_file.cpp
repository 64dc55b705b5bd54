#include "common/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace crmap {

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return Status::InvalidArgument("cannot write " + path + ": " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = std::fflush(file) == 0 && ok;
  ok = fsync(fileno(file)) == 0 && ok;
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    std::remove(temporary.c_str());
    return Status::Internal("failed writing " + temporary + ": " + std::strerror(errno));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Status::InvalidArgument("cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status CheckWritableFile(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return Status::InvalidArgument("output file name is empty");
  std::error_code error;
  if (fs::is_directory(path, error)) return Status::InvalidArgument("cannot write " + path + ": it is a folder");
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, error))
    return Status::InvalidArgument("cannot write " + path + ": folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK) != 0)
    return Status::InvalidArgument("cannot write " + path + ": folder " + folder.string() + " is not writable (" +
                                   std::strerror(errno) + ")");
  return Status::Ok();
}

}  // namespace crmap
