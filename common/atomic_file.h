// Writing a whole file so that readers never see a partial one: the bytes go to a temporary file next to it,
// are synced to disk, and the temporary is renamed over the target. On failure the temporary is removed and
// the target is left as it was. Thread-safe for distinct paths.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace crmap {

// InvalidArgument when the path cannot be written (missing folder, permissions), Internal on I/O errors.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// Whether WriteFileAtomically(path) could succeed, checked before long work that ends in writing it: the
// folder exists and is writable and `path` is not a folder. InvalidArgument naming the problem otherwise.
Status CheckWritableFile(const std::string& path);

}  // namespace crmap
