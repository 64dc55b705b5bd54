// Status and Result<T>: errors as values.
//
// Every fallible call in crmap's libraries returns a Status (a code and a message) or a Result<T> (a value
// or a Status). Exceptions never cross a module boundary; code that calls throwing libraries (oneDNN,
// nlohmann::json, LibTorch) catches at its edge and converts. Only the CLI turns a Status into a terminal
// message and an exit code (see ExitCodeFor in tuner/cli).
//
// Status and Result are plain values: copyable, thread-compatible (not synchronised).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace crmap {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller's input is wrong (unknown name, out-of-range value, malformed text)
  kNotFound,         // a named file or item does not exist
  kCorruption,       // a file exists but its content is damaged or inconsistent
  kUnsupported,      // a valid request that this host / library cannot carry out (e.g. oneDNN unimplemented)
  kResourceExhausted,  // a budget (memory, time) would be exceeded
  kInternal,         // a bug or an unexpected library failure
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: <message>"
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; ok statuses are returned unchanged.
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none. value() on an error is a bug (it aborts).
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design, like absl::StatusOr
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result constructed from an ok Status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { Check(); return *value_; }
  const T& value() const& { Check(); return *value_; }
  T&& value() && { Check(); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  void Check() const;
  Status status_;
  std::optional<T> value_;
};

[[noreturn]] void DieOnBadResultAccess(const Status& status);

template <typename T>
void Result<T>::Check() const {
  if (!value_) DieOnBadResultAccess(status_);
}

}  // namespace crmap

// Early return helpers for functions returning Status or Result<T>.
#define CRMAP_RETURN_IF_ERROR(expr)              \
  do {                                           \
    ::crmap::Status crmap_status_ = (expr);      \
    if (!crmap_status_.ok()) return crmap_status_; \
  } while (0)

#define CRMAP_CONCAT_INNER(a, b) a##b
#define CRMAP_CONCAT(a, b) CRMAP_CONCAT_INNER(a, b)
#define CRMAP_ASSIGN_OR_RETURN(lhs, expr) \
  CRMAP_ASSIGN_OR_RETURN_IMPL(CRMAP_CONCAT(crmap_result_, __LINE__), lhs, expr)
#define CRMAP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
