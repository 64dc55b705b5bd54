#include "tuner/tuning_db.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/file_read.h"
#include "tuner/measurement_record.h"

namespace crmap {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string ErrnoText(const std::string& path, const char* what, int error) {
  return path + ": " + what + ": " + std::strerror(error);
}

// A missing file or directory and a path that is not writable are the caller's input; anything else (a full
// disk, an I/O error) is a failure of this run.
Status ErrnoStatus(const std::string& path, const char* what, int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound(ErrnoText(path, what, error));
    case EACCES:
    case EPERM:
    case EISDIR:
    case EROFS:
    case ENAMETOOLONG:
    case ELOOP:
      return Status::InvalidArgument(ErrnoText(path, what, error));
    default:
      return Status::Internal(ErrnoText(path, what, error));
  }
}

bool IsBlank(const std::string& line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

// Optional fields: absent and null (how nlohmann writes a NaN) both mean "not recorded".
const Json* FindOptional(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<double> OptionalNumber(const Json& object, const char* key, const std::string& where) {
  const Json* value = FindOptional(object, key);
  if (value == nullptr) return kNaN;
  if (!value->is_number()) return Status::InvalidArgument(where + ": field '" + key + "' must be a number");
  return value->get<double>();
}

Result<int64_t> OptionalInt(const Json& object, const char* key, const std::string& where) {
  const Json* value = FindOptional(object, key);
  if (value == nullptr) return int64_t{0};
  return GetInt(object, key, where);
}

Result<std::string> OptionalString(const Json& object, const char* key, const std::string& where) {
  const Json* value = FindOptional(object, key);
  if (value == nullptr) return std::string();
  return GetString(object, key, where);
}

// A sub-object such as latency_us; absent or null is an empty object.
Result<const Json*> OptionalObject(const Json& object, const char* key, const std::string& where) {
  static const Json kEmpty = Json::object();
  const Json* value = FindOptional(object, key);
  if (value == nullptr) return &kEmpty;
  if (!value->is_object()) return Status::InvalidArgument(where + ": field '" + key + "' must be an object");
  return value;
}

Result<uint64_t> OptionalUnsigned(const Json& object, const char* key, const std::string& where) {
  const Json* value = FindOptional(object, key);
  if (value == nullptr) return uint64_t{0};
  if (value->is_number_unsigned()) return value->get<uint64_t>();
  if (value->is_number_integer() && value->get<int64_t>() >= 0) return static_cast<uint64_t>(value->get<int64_t>());
  return Status::InvalidArgument(where + ": field '" + key + "' must be a non-negative integer");
}

// Builds a record from a parsed JSON value. `where` prefixes every message ("line 7" or "record").
Result<TuningRecord> RecordFromJson(Json json, const std::string& where) {
  if (!json.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
  TuningRecord r;
  // The version first: a newer record may have changed any other field.
  if (!json.contains("version")) return Status::InvalidArgument(where + ": missing field 'version'");
  CRMAP_ASSIGN_OR_RETURN(int64_t version, GetInt(json, "version", where));
  if (version > kMeasurementRecordVersion) {
    return Status::InvalidArgument(where + ": record format version " + std::to_string(version) +
                                   " is newer than this crmap reads (" + std::to_string(kMeasurementRecordVersion) +
                                   ")");
  }
  if (version < 1) {
    return Status::InvalidArgument(where + ": record format version " + std::to_string(version) +
                                   " is not valid (versions start at 1)");
  }
  r.version = static_cast<int>(version);
  CRMAP_ASSIGN_OR_RETURN(r.workload, GetString(json, "workload", where));
  CRMAP_ASSIGN_OR_RETURN(r.workload_fingerprint, GetString(json, "workload_fingerprint", where));
  CRMAP_ASSIGN_OR_RETURN(r.space_fingerprint, GetString(json, "space_fingerprint", where));
  CRMAP_ASSIGN_OR_RETURN(r.workload_source, OptionalString(json, "workload_source", where));
  if (!json.contains("dims")) return Status::InvalidArgument(where + ": missing field 'dims'");
  const Json& dims = json["dims"];
  if (!dims.is_object()) return Status::InvalidArgument(where + ": field 'dims' must be an object");
  for (const auto& item : dims.items()) {
    CRMAP_ASSIGN_OR_RETURN(r.dims[item.key()], GetInt(dims, item.key(), where + ": dims"));
  }
  CRMAP_ASSIGN_OR_RETURN(r.config, GetString(json, "config", where));
  CRMAP_ASSIGN_OR_RETURN(r.status, GetString(json, "status", where));

  if (FindOptional(json, "baseline") != nullptr) {
    CRMAP_ASSIGN_OR_RETURN(r.baseline, GetBool(json, "baseline", where));
  }
  CRMAP_ASSIGN_OR_RETURN(r.message, OptionalString(json, "message", where));
  CRMAP_ASSIGN_OR_RETURN(const Json* latency, OptionalObject(json, "latency_us", where));
  CRMAP_ASSIGN_OR_RETURN(r.median_us, OptionalNumber(*latency, "median", where + ": latency_us"));
  CRMAP_ASSIGN_OR_RETURN(r.p95_us, OptionalNumber(*latency, "p95", where + ": latency_us"));
  CRMAP_ASSIGN_OR_RETURN(r.p99_us, OptionalNumber(*latency, "p99", where + ": latency_us"));
  CRMAP_ASSIGN_OR_RETURN(int64_t rounds, OptionalInt(*latency, "rounds", where + ": latency_us"));
  r.rounds = static_cast<int>(rounds);
  CRMAP_ASSIGN_OR_RETURN(const Json* ratio, OptionalObject(json, "ratio_to_anchor", where));
  CRMAP_ASSIGN_OR_RETURN(r.ratio_to_anchor, OptionalNumber(*ratio, "median", where + ": ratio_to_anchor"));
  CRMAP_ASSIGN_OR_RETURN(r.anchor, OptionalString(*ratio, "anchor", where + ": ratio_to_anchor"));
  CRMAP_ASSIGN_OR_RETURN(r.p95_ratio_to_anchor, OptionalNumber(*ratio, "latency_p95", where + ": ratio_to_anchor"));
  CRMAP_ASSIGN_OR_RETURN(r.p99_ratio_to_anchor, OptionalNumber(*ratio, "latency_p99", where + ": ratio_to_anchor"));
  CRMAP_ASSIGN_OR_RETURN(r.max_error, OptionalNumber(json, "max_error", where));
  CRMAP_ASSIGN_OR_RETURN(r.peak_bytes, OptionalInt(json, "peak_bytes", where));
  CRMAP_ASSIGN_OR_RETURN(r.agent, OptionalString(json, "agent", where));
  CRMAP_ASSIGN_OR_RETURN(r.campaign, OptionalString(json, "campaign", where));
  CRMAP_ASSIGN_OR_RETURN(r.seed, OptionalUnsigned(json, "seed", where));
  CRMAP_ASSIGN_OR_RETURN(r.time, OptionalString(json, "time", where));
  CRMAP_ASSIGN_OR_RETURN(const Json* host, OptionalObject(json, "host", where));
  CRMAP_ASSIGN_OR_RETURN(r.host_cpu, OptionalString(*host, "cpu", where + ": host"));
  CRMAP_ASSIGN_OR_RETURN(r.host_isa, OptionalString(*host, "isa", where + ": host"));
  CRMAP_ASSIGN_OR_RETURN(r.host_onednn, OptionalString(*host, "onednn", where + ": host"));
  CRMAP_ASSIGN_OR_RETURN(int64_t cores, OptionalInt(*host, "cores", where + ": host"));
  r.host_cores = static_cast<int>(cores);
  r.raw = std::move(json);
  return r;
}

// Reads the next line (without its '\n') into *line; false at the end of the file. A line longer than
// `max_bytes` is consumed without being kept: *oversized is set and *line is empty.
bool ReadCappedLine(FILE* file, size_t max_bytes, std::string* line, bool* oversized) {
  line->clear();
  *oversized = false;
  int c = getc_unlocked(file);
  if (c == EOF) return false;
  for (; c != EOF && c != '\n'; c = getc_unlocked(file)) {
    if (*oversized) continue;
    if (line->size() >= max_bytes) {
      *oversized = true;
      std::string().swap(*line);
      continue;
    }
    line->push_back(static_cast<char>(c));
  }
  return true;
}

// Parses text as JSON without throwing; false on malformed text.
bool ParseJsonLine(const std::string& line, Json* json) {
  *json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  return !json->is_discarded();
}

bool Matches(const std::string& wanted, const std::string& actual) { return wanted.empty() || wanted == actual; }

// Writes all of `data`, retrying on EINTR and short writes. On failure returns errno and sets *written.
int WriteFully(int fd, const char* data, size_t size, size_t* written) {
  *written = 0;
  while (*written < size) {
    ssize_t n = ::write(fd, data + *written, size - *written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    *written += static_cast<size_t>(n);
  }
  return 0;
}

// Makes a newly created file's directory entry durable.
void SyncParentDirectory(const std::string& path) {
  std::string dir = ".";
  size_t slash = path.rfind('/');
  if (slash == 0)
    dir = "/";
  else if (slash != std::string::npos)
    dir = path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the record itself is synced by Append
  ::fsync(fd);
  ::close(fd);
}

// True if the non-empty file at `path` does not end in '\n' (its last line was torn by a crash).
Result<bool> EndsInTornLine(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(path, "open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int error = errno;
    ::close(fd);
    return ErrnoStatus(path, "stat", error);
  }
  bool torn = false;
  if (st.st_size > 0) {
    char last = '\n';
    ssize_t n;
    do {
      n = ::pread(fd, &last, 1, st.st_size - 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) {
      int error = n < 0 ? errno : EIO;
      ::close(fd);
      return ErrnoStatus(path, "read", error);
    }
    torn = last != '\n';
  }
  ::close(fd);
  return torn;
}

}  // namespace

Result<TuningRecord> ParseTuningRecord(const std::string& line) {
  Json json;
  if (!ParseJsonLine(line, &json)) return Status::Corruption("record: not valid JSON (a torn write?)");
  if (!json.is_object()) return Status::Corruption("record: not a JSON object");
  return RecordFromJson(std::move(json), "record");
}

Result<TuningDbContents> ReadTuningDb(const std::string& path, const std::string& workload_fingerprint,
                                      const std::string& space_fingerprint) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    if (error == ENOENT) return Status::NotFound("tuning database " + path + " does not exist");
    return ErrnoStatus(path, "open", error);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + " is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxTuningDbBytes) {
    ::close(fd);
    return Status::InvalidArgument(path + ": larger than " + FormatBytes(kMaxTuningDbBytes) +
                                   ", the limit for a tuning database (split it, or is it the right file?)");
  }
  FILE* file = ::fdopen(fd, "r");
  if (file == nullptr) {
    int error = errno;
    ::close(fd);
    return ErrnoStatus(path, "open", error);
  }

  TuningDbContents contents;
  Status status;
  size_t line_number = 0;
  std::string line;
  bool oversized = false;
  while (ReadCappedLine(file, kMaxTuningDbLineBytes, &line, &oversized)) {
    ++line_number;
    if (oversized) {
      ++contents.skipped_torn;
      contents.warnings.push_back(path + ":" + std::to_string(line_number) + ": line longer than " +
                                  FormatBytes(kMaxTuningDbLineBytes) + " (the limit for one record) skipped");
      continue;
    }
    if (IsBlank(line)) continue;
    Json json;
    if (!ParseJsonLine(line, &json)) {
      ++contents.skipped_torn;
      contents.warnings.push_back(path + ":" + std::to_string(line_number) + ": unparsable line skipped (torn write?)");
      continue;
    }
    auto record = RecordFromJson(std::move(json), "line " + std::to_string(line_number));
    if (!record.ok()) {
      status = record.status().WithContext(path);
      break;
    }
    record->line = line_number;
    if (!Matches(workload_fingerprint, record->workload_fingerprint) ||
        !Matches(space_fingerprint, record->space_fingerprint)) {
      ++contents.other_fingerprints;
      continue;
    }
    contents.records.push_back(std::move(record).value());
  }
  if (status.ok() && std::ferror(file)) status = ErrnoStatus(path, "read", errno ? errno : EIO);
  std::fclose(file);
  if (!status.ok()) return status;
  return contents;
}

Status CheckRecordFits(const TuningRecord& record, const Workload& workload, const SearchSpace& space) {
  CRMAP_RETURN_IF_ERROR(workload.CheckDims(record.dims));
  if (!record.baseline) CRMAP_RETURN_IF_ERROR(space.Parse(record.config).status());
  return Status::Ok();
}

Result<TuningDbContents> ReadTuningDbFor(const std::string& path, const Workload& workload, const SearchSpace& space) {
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents contents, ReadTuningDb(path, workload.fingerprint(), space.fingerprint()));
  std::vector<TuningRecord> usable;
  usable.reserve(contents.records.size());
  for (TuningRecord& record : contents.records) {
    Status fits = CheckRecordFits(record, workload, space);
    if (fits.ok()) {
      usable.push_back(std::move(record));
      continue;
    }
    ++contents.unusable;
    contents.warnings.push_back(path + ":" + std::to_string(record.line) + ": record ignored: " + fits.message());
  }
  contents.records = std::move(usable);
  return contents;
}

Result<TuningDbWriter> TuningDbWriter::Open(const std::string& path) {
  struct stat st {};
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) return Status::InvalidArgument(path + ": is a directory, not a tuning database");
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(path, "open for appending", errno);
  TuningDbWriter writer(fd, path);
  if (!existed) SyncParentDirectory(path);
  CRMAP_ASSIGN_OR_RETURN(bool torn, EndsInTornLine(path));
  if (torn) {
    // End the torn line so that it stays one unparsable line and the next record starts on its own.
    size_t written = 0;
    int error = WriteFully(fd, "\n", 1, &written);
    if (error == 0 && ::fdatasync(fd) != 0) error = errno;
    if (error != 0) return ErrnoStatus(path, "ending a torn last line", error);
  }
  return writer;
}

TuningDbWriter::TuningDbWriter(TuningDbWriter&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

TuningDbWriter& TuningDbWriter::operator=(TuningDbWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

TuningDbWriter::~TuningDbWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status TuningDbWriter::Append(const Json& record) {
  if (fd_ < 0) return Status::Internal("tuning database writer used after being moved from");
  if (!record.is_object()) return Status::InvalidArgument(path_ + ": a record must be a JSON object");
  std::string line;
  try {
    // dump() escapes control characters, so the line holds no newline; invalid UTF-8 is replaced, not thrown.
    line = record.dump(-1, ' ', false, Json::error_handler_t::replace);
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(path_ + ": record cannot be serialised: " + e.what());
  }
  line += '\n';
  const off_t end_before = ::lseek(fd_, 0, SEEK_END);
  size_t written = 0;
  int error = WriteFully(fd_, line.data(), line.size(), &written);
  if (error != 0) {
    // Part of the line may be on disk (disk full): cut it off, so that the file holds whole records only. If
    // that fails too, end the fragment so that the next record starts on a line of its own (readers skip it;
    // the next Open ends the line if this cannot).
    if (written > 0 && (end_before < 0 || ::ftruncate(fd_, end_before) != 0)) {
      size_t ignored = 0;
      WriteFully(fd_, "\n", 1, &ignored);
    }
    return ErrnoStatus(path_, "append a record to", error);
  }
  if (::fdatasync(fd_) != 0) return ErrnoStatus(path_, "fdatasync", errno);
  return Status::Ok();
}

}  // namespace crmap
