//===- Status.h - the runtime's error type ----------------------*- C++ -*-===//
//
// The runtime never throws: every fallible call returns a Status (or a
// StatusOr<T>) whose message says what went wrong and where (file, tensor,
// kernel). The C API turns these into mp_status codes.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_STATUS_H
#define MP_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mp::rt {

enum class StatusCode {
  Ok = 0,
  InvalidArgument, ///< bad input from the caller (shape, dtype, name)
  NotFound,        ///< a missing file or name
  DataLoss,        ///< a corrupt or truncated file
  Unimplemented,   ///< an op or dtype this backend does not run
  Internal,        ///< an I/O failure or a broken invariant
};

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

inline Status invalidArgument(std::string m) {
  return Status(StatusCode::InvalidArgument, std::move(m));
}
inline Status notFound(std::string m) {
  return Status(StatusCode::NotFound, std::move(m));
}
inline Status dataLoss(std::string m) {
  return Status(StatusCode::DataLoss, std::move(m));
}
inline Status unimplemented(std::string m) {
  return Status(StatusCode::Unimplemented, std::move(m));
}
inline Status internalError(std::string m) {
  return Status(StatusCode::Internal, std::move(m));
}

/// A value or the Status that explains why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.isOk() && "StatusOr built from an ok Status");
  }
  bool isOk() const { return status_.isOk(); }
  const Status &status() const { return status_; }
  T &value() { return *value_; }
  const T &value() const { return *value_; }
  T &operator*() { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  Status status_;
  std::optional<T> value_;
};

} // namespace mp::rt

/// Returns the Status of `expr` from the enclosing function when not ok.
#define MP_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    ::mp::rt::Status mpStatus_ = (expr);                                       \
    if (!mpStatus_.isOk())                                                     \
      return mpStatus_;                                                        \
  } while (false)

#endif // MP_RUNTIME_STATUS_H
