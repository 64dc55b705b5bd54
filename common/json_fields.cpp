#include "common/json_fields.h"

#include <cmath>

namespace crmap {

Result<Json> ParseJsonText(const std::string& text, const std::string& source) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Status::InvalidArgument(source + ": malformed JSON (" + e.what() + ")");
  }
}

Status CheckKnownFields(const Json& object, const std::set<std::string>& allowed, const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  for (const auto& item : object.items()) {
    if (allowed.count(item.key()) == 0) {
      return Status::InvalidArgument(where + ": unknown field '" + item.key() + "'; allowed: " +
                                     JoinNames(std::vector<std::string>(allowed.begin(), allowed.end())));
    }
  }
  return Status::Ok();
}

namespace {

Result<const Json*> Find(const Json& object, const std::string& key, const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  auto it = object.find(key);
  if (it == object.end()) return Status::InvalidArgument(where + ": missing field '" + key + "'");
  return &*it;
}

Status TypeError(const std::string& where, const std::string& key, const char* type) {
  return Status::InvalidArgument(where + ": field '" + key + "' must be " + type);
}

}  // namespace

Result<std::string> GetString(const Json& object, const std::string& key, const std::string& where) {
  CRMAP_ASSIGN_OR_RETURN(const Json* value, Find(object, key, where));
  if (!value->is_string()) return TypeError(where, key, "a string");
  return value->get<std::string>();
}

Result<int64_t> GetInt(const Json& object, const std::string& key, const std::string& where) {
  CRMAP_ASSIGN_OR_RETURN(const Json* value, Find(object, key, where));
  if (value->is_number_integer()) return value->get<int64_t>();
  if (value->is_number_float()) {
    double d = value->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<int64_t>(d);
  }
  return TypeError(where, key, "an integer");
}

Result<double> GetNumber(const Json& object, const std::string& key, const std::string& where) {
  CRMAP_ASSIGN_OR_RETURN(const Json* value, Find(object, key, where));
  if (!value->is_number()) return TypeError(where, key, "a number");
  double d = value->get<double>();
  if (!std::isfinite(d)) return TypeError(where, key, "a finite number");
  return d;
}

Result<bool> GetBool(const Json& object, const std::string& key, const std::string& where) {
  CRMAP_ASSIGN_OR_RETURN(const Json* value, Find(object, key, where));
  if (!value->is_boolean()) return TypeError(where, key, "true or false");
  return value->get<bool>();
}

Result<std::string> GetStringOr(const Json& object, const std::string& key, const std::string& fallback,
                                const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  if (!object.contains(key)) return fallback;
  return GetString(object, key, where);
}

Result<int64_t> GetIntOr(const Json& object, const std::string& key, int64_t fallback, const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  if (!object.contains(key)) return fallback;
  return GetInt(object, key, where);
}

Result<double> GetNumberOr(const Json& object, const std::string& key, double fallback, const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  if (!object.contains(key)) return fallback;
  return GetNumber(object, key, where);
}

Result<bool> GetBoolOr(const Json& object, const std::string& key, bool fallback, const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  if (!object.contains(key)) return fallback;
  return GetBool(object, key, where);
}

std::string JoinNames(const std::vector<std::string>& names, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += separator;
    out += names[i];
  }
  return out;
}

}  // namespace crmap
