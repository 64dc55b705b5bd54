#include "common/atomic_file.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace crmap {

namespace {

// Writes all bytes to an open stream, flushes and syncs it; the first errno on failure, 0 on success.
int WriteAndSync(FILE* file, std::string_view bytes) {
  int error = 0;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) error = errno ? errno : EIO;
  if (std::fflush(file) != 0 && error == 0) error = errno;
  if (fsync(fileno(file)) != 0 && error == 0 && errno != EINVAL && errno != EROFS) error = errno;  // FIFOs: EINVAL
  if (std::fclose(file) != 0 && error == 0) error = errno;
  return error;
}

Status WriteThrough(const std::string& path, std::string_view bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return Status::InvalidArgument("cannot write " + path + ": " + std::strerror(errno));
  int error = WriteAndSync(file, bytes);
  if (error != 0) return Status::Internal("failed writing " + path + ": " + std::strerror(error));
  return Status::Ok();
}

}  // namespace

std::string SpecialFileKind(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return "";
  if (S_ISLNK(info.st_mode)) return "a symlink";
  if (S_ISFIFO(info.st_mode)) return "a FIFO";
  if (S_ISCHR(info.st_mode)) return "a character device";
  if (S_ISBLK(info.st_mode)) return "a block device";
  if (S_ISSOCK(info.st_mode)) return "a socket";
  if (S_ISDIR(info.st_mode)) return "a folder";
  return "not a regular file";
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  std::string target = path;
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    char* resolved = ::realpath(path.c_str(), nullptr);  // the link's target is replaced, the link stays
    if (resolved == nullptr) return Status::InvalidArgument("cannot write " + path + ": " + std::strerror(errno));
    target = resolved;
    std::free(resolved);
  }
  if (::stat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) return Status::InvalidArgument("cannot write " + path + ": it is a folder");
    return WriteThrough(target, bytes);  // a FIFO or a device: never replaced by a regular file
  }
  const std::string temporary = target + ".tmp." + std::to_string(getpid());
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return Status::InvalidArgument("cannot write " + path + ": " + std::strerror(errno));
  int error = WriteAndSync(file, bytes);
  if (error != 0) {
    std::remove(temporary.c_str());
    return Status::Internal("failed writing " + path + ": " + std::strerror(error) + " (" + path +
                            " was left as it was)");
  }
  if (std::rename(temporary.c_str(), target.c_str()) != 0) {
    error = errno;
    std::remove(temporary.c_str());
    return Status::InvalidArgument("cannot write " + path + ": " + std::strerror(error));
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

Status CheckOutputPath(const std::string& option, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& inputs, bool force) {
  if (!force) {
    struct stat out {};
    if (::stat(path.c_str(), &out) == 0) {
      for (const auto& [input_option, input_path] : inputs) {
        struct stat in {};
        if (::stat(input_path.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
          return Status::InvalidArgument(option + " " + path + " is the same file as " + input_option + " " +
                                         input_path + ": writing it would destroy the input; choose another " +
                                         "output path (or --force-out)");
      }
    }
    std::string kind = SpecialFileKind(path);
    if (!kind.empty() && kind != "a folder")
      return Status::InvalidArgument(option + " " + path + " is " + kind +
                                     ", not a regular file; crmap writes outputs as regular files (give another "
                                     "path, or --force-out to write through it)");
  }
  return CheckWritableFile(path);
}

}  // namespace crmap
