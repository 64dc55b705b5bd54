// Writing a whole file so that readers never see a partial one: the bytes go to a temporary file next to it,
// are synced to disk, and the temporary is renamed over the target. On failure (disk full, permissions) the
// temporary is removed, the target is left as it was, and the error names the target. A path that exists and
// is not a regular file is never replaced by one: through a symlink the link's target is replaced (the link
// stays); a FIFO or a device is written through, in place (commands refuse both unless forced, see
// CheckOutputPath). Thread-safe for distinct paths.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace crmap {

// InvalidArgument when the path cannot be written (missing folder, permissions), Internal on I/O errors.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// Whether WriteFileAtomically(path) could succeed, checked before long work that ends in writing it: the
// folder exists and is writable and `path` is not a folder. InvalidArgument naming the problem otherwise.
Status CheckWritableFile(const std::string& path);

// What `path` is when it exists but is not a regular file ("a symlink", "a FIFO", "a character device", ...);
// empty when it is a regular file or does not exist.
std::string SpecialFileKind(const std::string& path);

// An output file a command is about to write, checked before any work: refused (InvalidArgument, naming both
// options) when it is the same file as one of `inputs` (same device and inode: hard links and symlinks too),
// or when it exists and is not a regular file — unless `force`. Then CheckWritableFile. `option` names the
// output's flag in messages ("--out"); `inputs` are (flag, path) pairs; paths that do not exist are ignored.
Status CheckOutputPath(const std::string& option, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& inputs, bool force);

}  // namespace crmap
