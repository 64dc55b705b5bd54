// Checked access to fields of a parsed JSON object, with error messages that name the field and its place.
//
// nlohmann::json throws on a type mismatch with a message that does not say which field was wrong; these
// helpers return a Status instead ("<where>: field 'kernel' must be an integer"). Used by every file loader
// (workloads, distributions, scenarios, configs). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace crmap {

using Json = nlohmann::json;

// Parses text into JSON; InvalidArgument with the parser's position on malformed input, on a number beyond
// double's range (1e999) and on a key repeated within one object.
Result<Json> ParseJsonText(const std::string& text, const std::string& source);

// Fails if `object` has a key not in `allowed`; the message lists the allowed keys.
Status CheckKnownFields(const Json& object, const std::set<std::string>& allowed, const std::string& where);

Result<std::string> GetString(const Json& object, const std::string& key, const std::string& where);
Result<int64_t> GetInt(const Json& object, const std::string& key, const std::string& where);
Result<double> GetNumber(const Json& object, const std::string& key, const std::string& where);
Result<bool> GetBool(const Json& object, const std::string& key, const std::string& where);

// Optional variants: the default when the key is absent, an error when present with the wrong type.
Result<std::string> GetStringOr(const Json& object, const std::string& key, const std::string& fallback,
                                const std::string& where);
Result<int64_t> GetIntOr(const Json& object, const std::string& key, int64_t fallback, const std::string& where);
Result<double> GetNumberOr(const Json& object, const std::string& key, double fallback, const std::string& where);
Result<bool> GetBoolOr(const Json& object, const std::string& key, bool fallback, const std::string& where);

// "a", "b" and "c" -> "a, b, c"
std::string JoinNames(const std::vector<std::string>& names, const std::string& separator = ", ");

}  // namespace crmap
