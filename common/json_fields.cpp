#include "common/json_fields.h"

#include <climits>
#include <cmath>

namespace crmap {

Result<Json> ParseJsonText(const std::string& text, const std::string& source) {
  // Keys seen in each object being parsed (innermost last): a repeated key is an error, not "the last wins".
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto check_keys = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty() && duplicate.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(key).second) duplicate = key;
    }
    return true;
  };
  Json json;
  try {
    json = Json::parse(text, check_keys);
  } catch (const Json::parse_error& e) {
    return Status::InvalidArgument(source + ": malformed JSON (" + e.what() + ")");
  } catch (const Json::exception& e) {  // e.g. out_of_range 406: a number beyond double's range (1e999)
    return Status::InvalidArgument(source + ": unusable JSON value (" + e.what() + ")");
  }
  if (!duplicate.empty())
    return Status::InvalidArgument(source + ": key '" + duplicate + "' appears twice in one object; each key may "
                                   "appear once");
  return json;
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
  if (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return Status::InvalidArgument(where + ": field '" + key + "' = " + value->dump() + " is beyond the largest " +
                                   "integer allowed, " + std::to_string(INT64_MAX));
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
