#include "common/file_read.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hash.h"

namespace crmap {

std::string FormatBytes(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0)
    std::snprintf(text, sizeof text, "%llu GiB", static_cast<unsigned long long>(bytes >> 30));
  else if (bytes >= (uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (uint64_t{1} << 30));
  else if (bytes >= kMiB && bytes % kMiB == 0)
    std::snprintf(text, sizeof text, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  else if (bytes >= kMiB)
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  else
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

namespace {

Status TooLarge(const std::string& path, uint64_t max_bytes, const std::string& what) {
  return Status::InvalidArgument(path + ": larger than " + FormatBytes(max_bytes) + ", the limit for a " + what +
                                 " (is it the right file?)");
}

// Calls `chunk` with the file's bytes in order; stops with an error past `max_bytes`.
Status ReadChunks(const std::string& path, uint64_t max_bytes, const std::string& what,
                  const std::function<void(const char*, size_t)>& chunk) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    if (error == ENOENT) return Status::NotFound("no such file: " + path);
    return Status::InvalidArgument("cannot open " + path + ": " + std::strerror(error));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + " is a directory, not a file");
  }
  if (S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) > max_bytes) {
    ::close(fd);
    return TooLarge(path, max_bytes, what);
  }
  char buffer[1 << 16];
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return Status::InvalidArgument("cannot read " + path + ": " + std::strerror(error));
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > max_bytes) {  // a device, a pipe, or a file that grew while being read
      ::close(fd);
      return TooLarge(path, max_bytes, what);
    }
    chunk(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return Status::Ok();
}

}  // namespace

Result<std::string> ReadFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what) {
  std::string text;
  CRMAP_RETURN_IF_ERROR(ReadChunks(path, max_bytes, what, [&](const char* data, size_t n) { text.append(data, n); }));
  return text;
}

Result<uint64_t> DigestFile(const std::string& path, uint64_t max_bytes, const std::string& what) {
  uint64_t hash = kFnvOffsetBasis;
  CRMAP_RETURN_IF_ERROR(ReadChunks(path, max_bytes, what, [&](const char* data, size_t n) {
    hash = Fnv1a64(std::string_view(data, n), hash);
  }));
  return hash;
}

}  // namespace crmap
