#include "common/strings.h"
#include "common/workload.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cctype>
#include <set>
#include <sstream>

#include "common/hash.h"
#include "common/json_fields.h"

namespace crmap {

namespace {

constexpr const char* kWorkloadFormat = "crmap.workload/1";

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool ParseInt64(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();  // beyond INT64_MAX: false
}

struct OpKindInfo {
  OpKind kind;
  const char* name;
  int num_inputs;
  std::set<std::string> attributes;  // besides name, op, inputs
};

const std::vector<OpKindInfo>& OpKindTable() {
  static const std::vector<OpKindInfo> table = {
      {OpKind::kLinear, "linear", 1, {"out_features", "bias"}},
      {OpKind::kMatmul, "matmul", 2, {}},
      {OpKind::kConv2d, "conv2d", 1, {"out_channels", "kernel", "stride", "padding", "groups", "bias"}},
      {OpKind::kEltwise, "eltwise", 1, {"alg", "alpha", "beta"}},
      {OpKind::kAdd, "add", 2, {}},
      {OpKind::kLayerNorm, "layer_norm", 1, {"epsilon"}},
      {OpKind::kSoftmax, "softmax", 1, {}},
      {OpKind::kPool, "pool", 1, {"alg", "kernel", "stride", "padding"}},
      {OpKind::kSplitHeads, "split_heads", 1, {"heads", "parts", "part"}},
      {OpKind::kTranspose, "transpose", 1, {}},
      {OpKind::kMergeHeads, "merge_heads", 1, {}},
  };
  return table;
}

const std::vector<std::pair<EltwiseAlg, const char*>>& EltwiseTable() {
  static const std::vector<std::pair<EltwiseAlg, const char*>> table = {
      {EltwiseAlg::kRelu, "relu"},       {EltwiseAlg::kGeluTanh, "gelu_tanh"}, {EltwiseAlg::kGeluErf, "gelu_erf"},
      {EltwiseAlg::kSigmoid, "sigmoid"}, {EltwiseAlg::kSwish, "swish"},         {EltwiseAlg::kTanh, "tanh"},
      {EltwiseAlg::kLinear, "linear"},
  };
  return table;
}

Result<SizeExpr> ParseSizeExpr(const Json& value, const std::string& where) {
  SizeExpr expr;
  if (value.is_number_integer()) {
    expr.constant = value.get<int64_t>();
    if (expr.constant < 1 || expr.constant > kMaxTensorElements)
      return Status::InvalidArgument(where + ": sizes must be in [1, " + std::to_string(kMaxTensorElements) + "]");
    return expr;
  }
  if (!value.is_string()) {
    return Status::InvalidArgument(where + ": a size must be an integer or a product of dim names like \"batch*seq\"");
  }
  const std::string text = value.get<std::string>();
  if (text.empty() || text.back() == '*') return Status::InvalidArgument(where + ": bad size '" + text + "'");
  std::stringstream stream(text);
  std::string factor;
  while (std::getline(stream, factor, '*')) {
    factor = Trim(factor);
    int64_t number = 0;
    if (ParseInt64(factor, &number)) {
      if (number < 1) return Status::InvalidArgument(where + ": sizes must be >= 1");
      if (number > kMaxTensorElements / expr.constant)
        return Status::InvalidArgument(where + ": size '" + text + "' is too large");
      expr.constant *= number;
    } else if (IsIdentifier(factor)) {
      expr.dim_names.push_back(factor);
    } else {
      return Status::InvalidArgument(where + ": bad size factor '" + factor +
                                     "' (expected a positive integer or a dim name)");
    }
  }
  return expr;
}

// Reads an int or a [h, w] pair.
Status ReadPair(const Json& object, const std::string& key, int64_t out[2], int64_t minimum,
                const std::string& where) {
  if (!object.contains(key)) return Status::Ok();
  const Json& value = object.at(key);
  std::vector<int64_t> values;
  if (value.is_number_integer()) {
    values = {value.get<int64_t>(), value.get<int64_t>()};
  } else if (value.is_array() && value.size() == 2 && value[0].is_number_integer() && value[1].is_number_integer()) {
    values = {value[0].get<int64_t>(), value[1].get<int64_t>()};
  } else {
    return Status::InvalidArgument(where + ": field '" + key + "' must be an integer or [h, w]");
  }
  for (int i = 0; i < 2; ++i) {
    if (values[i] < minimum)
      return Status::InvalidArgument(where + ": field '" + key + "' must be >= " + std::to_string(minimum));
    out[i] = values[i];
  }
  return Status::Ok();
}

Result<OpSpec> ParseOp(const Json& json, size_t index) {
  std::string where = "op #" + std::to_string(index);
  CRMAP_ASSIGN_OR_RETURN(std::string name, GetString(json, "name", where));
  where = "op '" + name + "'";
  if (!IsIdentifier(name)) return Status::InvalidArgument(where + ": names use [a-z0-9_] and start with a letter");
  CRMAP_ASSIGN_OR_RETURN(std::string kind_name, GetString(json, "op", where));
  const OpKindInfo* info = nullptr;
  std::vector<std::string> known;
  for (const auto& entry : OpKindTable()) {
    known.push_back(entry.name);
    if (kind_name == entry.name) info = &entry;
  }
  if (!info) return Status::InvalidArgument(where + ": unknown op '" + kind_name + "'; allowed: " + JoinNames(known));
  std::set<std::string> allowed = info->attributes;
  allowed.insert({"name", "op", "inputs"});
  CRMAP_RETURN_IF_ERROR(CheckKnownFields(json, allowed, where));

  OpSpec op;
  op.name = name;
  op.kind = info->kind;
  if (!json.contains("inputs") || !json["inputs"].is_array())
    return Status::InvalidArgument(where + ": field 'inputs' must be an array of tensor names");
  for (const auto& input : json["inputs"]) {
    if (!input.is_string()) return Status::InvalidArgument(where + ": inputs must be tensor names");
    op.inputs.push_back(input.get<std::string>());
  }
  if (static_cast<int>(op.inputs.size()) != info->num_inputs) {
    return Status::InvalidArgument(where + ": " + kind_name + " takes " + std::to_string(info->num_inputs) +
                                   " input(s), got " + std::to_string(op.inputs.size()));
  }

  switch (op.kind) {
    case OpKind::kLinear: {
      CRMAP_ASSIGN_OR_RETURN(op.out_features, GetInt(json, "out_features", where));
      CRMAP_ASSIGN_OR_RETURN(op.bias, GetBoolOr(json, "bias", true, where));
      if (op.out_features < 1 || op.out_features > kMaxTensorElements)
        return Status::InvalidArgument(where + ": out_features must be in [1, " + std::to_string(kMaxTensorElements) + "]");
      break;
    }
    case OpKind::kConv2d: {
      CRMAP_ASSIGN_OR_RETURN(op.out_features, GetInt(json, "out_channels", where));
      CRMAP_ASSIGN_OR_RETURN(op.bias, GetBoolOr(json, "bias", true, where));
      CRMAP_ASSIGN_OR_RETURN(op.groups, GetIntOr(json, "groups", 1, where));
      if (op.out_features < 1 || op.groups < 1 || op.out_features > kMaxTensorElements)
        return Status::InvalidArgument(where + ": out_channels and groups must be >= 1 (and out_channels <= " +
                                       std::to_string(kMaxTensorElements) + ")");
      CRMAP_RETURN_IF_ERROR(ReadPair(json, "kernel", op.kernel, 1, where));
      CRMAP_RETURN_IF_ERROR(ReadPair(json, "stride", op.stride, 1, where));
      CRMAP_RETURN_IF_ERROR(ReadPair(json, "padding", op.padding, 0, where));
      break;
    }
    case OpKind::kPool: {
      CRMAP_ASSIGN_OR_RETURN(std::string alg, GetString(json, "alg", where));
      if (alg == "max") op.pool = PoolAlg::kMax;
      else if (alg == "avg") op.pool = PoolAlg::kAvg;
      else return Status::InvalidArgument(where + ": unknown pool alg '" + alg + "'; allowed: max, avg");
      CRMAP_RETURN_IF_ERROR(ReadPair(json, "kernel", op.kernel, 1, where));
      op.stride[0] = op.kernel[0];
      op.stride[1] = op.kernel[1];
      CRMAP_RETURN_IF_ERROR(ReadPair(json, "stride", op.stride, 1, where));
      CRMAP_RETURN_IF_ERROR(ReadPair(json, "padding", op.padding, 0, where));
      for (int i = 0; i < 2; ++i)
        if (op.padding[i] * 2 > op.kernel[i])
          return Status::InvalidArgument(where + ": pool padding must be at most half the kernel size");
      break;
    }
    case OpKind::kEltwise: {
      CRMAP_ASSIGN_OR_RETURN(std::string alg, GetString(json, "alg", where));
      bool found = false;
      std::vector<std::string> names;
      for (const auto& [value, alg_name] : EltwiseTable()) {
        names.push_back(alg_name);
        if (alg == alg_name) {
          op.eltwise = value;
          found = true;
        }
      }
      if (!found) return Status::InvalidArgument(where + ": unknown eltwise alg '" + alg + "'; allowed: " + JoinNames(names));
      // alpha: relu's negative slope (leaky relu), swish's beta, linear's scale; beta: linear's shift.
      bool takes_alpha = op.eltwise == EltwiseAlg::kRelu || op.eltwise == EltwiseAlg::kSwish ||
                         op.eltwise == EltwiseAlg::kLinear;
      if ((json.contains("alpha") && !takes_alpha) || (json.contains("beta") && op.eltwise != EltwiseAlg::kLinear))
        return Status::InvalidArgument(where + ": eltwise '" + alg +
                                       "' takes no such parameter (alpha: relu, swish, linear; beta: linear)");
      double default_alpha = op.eltwise == EltwiseAlg::kSwish || op.eltwise == EltwiseAlg::kLinear ? 1.0 : 0.0;
      CRMAP_ASSIGN_OR_RETURN(double alpha, GetNumberOr(json, "alpha", default_alpha, where));
      CRMAP_ASSIGN_OR_RETURN(double beta, GetNumberOr(json, "beta", 0.0, where));
      op.alpha = static_cast<float>(alpha);
      op.beta = static_cast<float>(beta);
      break;
    }
    case OpKind::kLayerNorm: {
      CRMAP_ASSIGN_OR_RETURN(double eps, GetNumberOr(json, "epsilon", 1e-5, where));
      if (eps <= 0) return Status::InvalidArgument(where + ": epsilon must be > 0");
      op.epsilon = static_cast<float>(eps);
      break;
    }
    case OpKind::kSplitHeads: {
      CRMAP_ASSIGN_OR_RETURN(op.heads, GetInt(json, "heads", where));
      CRMAP_ASSIGN_OR_RETURN(op.parts, GetIntOr(json, "parts", 1, where));
      CRMAP_ASSIGN_OR_RETURN(op.part, GetIntOr(json, "part", 0, where));
      if (op.heads < 1 || op.parts < 1 || op.part < 0 || op.part >= op.parts)
        return Status::InvalidArgument(where + ": need heads >= 1, parts >= 1 and 0 <= part < parts");
      break;
    }
    case OpKind::kMatmul:
    case OpKind::kAdd:
    case OpKind::kSoftmax:
    case OpKind::kTranspose:
    case OpKind::kMergeHeads:
      break;
  }
  return op;
}

Status ShapeError(const OpSpec& op, const std::string& what) {
  return Status::InvalidArgument("op '" + op.name + "' (" + OpKindName(op.kind) + "): " + what);
}

std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Result<Shape> InferOpShape(const OpSpec& op, const std::vector<const Shape*>& in) {
  const Shape& x = *in[0];
  switch (op.kind) {
    case OpKind::kLinear: {
      if (x.empty()) return ShapeError(op, "input must have rank >= 1");
      Shape y = x;
      y.back() = op.out_features;
      return y;
    }
    case OpKind::kMatmul: {
      const Shape& b = *in[1];
      if (x.size() < 2 || x.size() != b.size())
        return ShapeError(op, "inputs must have equal rank >= 2, got " + ShapeText(x) + " and " + ShapeText(b));
      size_t r = x.size();
      for (size_t i = 0; i + 2 < r; ++i)
        if (x[i] != b[i]) return ShapeError(op, "batch dims differ: " + ShapeText(x) + " vs " + ShapeText(b));
      if (x[r - 1] != b[r - 2])
        return ShapeError(op, "inner dims differ: " + ShapeText(x) + " x " + ShapeText(b));
      Shape y = x;
      y[r - 1] = b[r - 1];
      return y;
    }
    case OpKind::kConv2d:
    case OpKind::kPool: {
      if (x.size() != 4) return ShapeError(op, "input must be NCHW, got " + ShapeText(x));
      Shape y = x;
      if (op.kind == OpKind::kConv2d) {
        if (x[1] % op.groups != 0 || op.out_features % op.groups != 0)
          return ShapeError(op, "channels (" + std::to_string(x[1]) + " in, " + std::to_string(op.out_features) +
                                    " out) must be divisible by groups (" + std::to_string(op.groups) + ")");
        y[1] = op.out_features;
      }
      for (int i = 0; i < 2; ++i) {
        int64_t span = 0;
        if (__builtin_mul_overflow(op.padding[i], 2, &span) || __builtin_add_overflow(span, x[2 + i], &span) ||
            __builtin_sub_overflow(span, op.kernel[i], &span))
          return ShapeError(op, "padding or kernel too large for the input " + ShapeText(x));
        if (span < 0) return ShapeError(op, "kernel larger than the padded input " + ShapeText(x));
        y[2 + i] = span / op.stride[i] + 1;
      }
      return y;
    }
    case OpKind::kEltwise:
    case OpKind::kSoftmax:
    case OpKind::kLayerNorm:
      if (x.empty()) return ShapeError(op, "input must have rank >= 1");
      return x;
    case OpKind::kAdd:
      if (x != *in[1]) return ShapeError(op, "shapes differ: " + ShapeText(x) + " vs " + ShapeText(*in[1]));
      return x;
    case OpKind::kSplitHeads: {
      if (x.size() != 3) return ShapeError(op, "input must be [B, S, F], got " + ShapeText(x));
      int64_t split = 0;
      if (__builtin_mul_overflow(op.parts, op.heads, &split) || split < 1 || x[2] % split != 0)
        return ShapeError(op, "feature size " + std::to_string(x[2]) + " is not divisible by parts*heads");
      return Shape{x[0], op.heads, x[1], x[2] / split};
    }
    case OpKind::kTranspose: {
      if (x.size() < 2) return ShapeError(op, "input must have rank >= 2");
      Shape y = x;
      std::swap(y[y.size() - 1], y[y.size() - 2]);
      return y;
    }
    case OpKind::kMergeHeads:
      if (x.size() != 4) return ShapeError(op, "input must be [B, H, S, D], got " + ShapeText(x));
      return Shape{x[0], x[2], x[1] * x[3]};
  }
  return ShapeError(op, "unknown op kind");
}

}  // namespace

Result<Dims> ParseDimsText(const std::string& text) {
  Dims dims;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      return Status::InvalidArgument("dims: expected name=value, got '" + item + "'");
    std::string name = Trim(item.substr(0, eq));
    std::string value = Trim(item.substr(eq + 1));
    int64_t number = 0;
    if (!IsIdentifier(name)) return Status::InvalidArgument("dims: bad dim name '" + name + "'");
    if (!ParseInt64(value, &number) || number < 1)
      return Status::InvalidArgument("dims: value of '" + name + "' must be an integer in [1, " +
                                     std::to_string(INT64_MAX) + "], got '" + value + "'");
    if (dims.count(name)) return Status::InvalidArgument("dims: '" + name + "' given twice");
    dims[name] = number;
  }
  if (dims.empty()) return Status::InvalidArgument("dims: empty (expected name=value,...)");
  return dims;
}

std::string DimsToText(const Dims& dims) {
  std::string text;
  for (const auto& [name, value] : dims) {
    if (!text.empty()) text += ",";
    text += name + "=" + std::to_string(value);
  }
  return text;
}

const char* OpKindName(OpKind kind) {
  for (const auto& entry : OpKindTable())
    if (entry.kind == kind) return entry.name;
  return "unknown";
}

bool IsComputeOp(OpKind kind) {
  return kind == OpKind::kLinear || kind == OpKind::kMatmul || kind == OpKind::kConv2d;
}

const char* EltwiseAlgName(EltwiseAlg alg) {
  for (const auto& [value, name] : EltwiseTable())
    if (value == alg) return name;
  return "unknown";
}

int64_t SizeExpr::Evaluate(const Dims& dims) const {
  int64_t value = constant;
  for (const auto& name : dim_names)
    if (__builtin_mul_overflow(value, dims.at(name), &value)) return INT64_MAX;  // saturates: "too many elements"
  return value;
}

std::string SizeExpr::ToString() const {
  std::vector<std::string> factors = dim_names;
  if (constant != 1 || factors.empty()) factors.insert(factors.begin(), std::to_string(constant));
  return JoinNames(factors, "*");
}

const OpSpec* Workload::FindOp(const std::string& name) const {
  for (const auto& op : ops_)
    if (op.name == name) return &op;
  return nullptr;
}

std::vector<size_t> Workload::ConsumersOf(const std::string& tensor) const {
  std::vector<size_t> consumers;
  for (size_t i = 0; i < ops_.size(); ++i)
    if (std::find(ops_[i].inputs.begin(), ops_[i].inputs.end(), tensor) != ops_[i].inputs.end())
      consumers.push_back(i);
  return consumers;
}

bool Workload::IsGraphOutput(const std::string& tensor) const {
  return std::find(outputs_.begin(), outputs_.end(), tensor) != outputs_.end();
}

bool Workload::IsGraphInput(const std::string& tensor) const {
  return std::any_of(inputs_.begin(), inputs_.end(), [&](const GraphInput& in) { return in.name == tensor; });
}

bool Workload::HasImageOps() const {
  return std::any_of(ops_.begin(), ops_.end(),
                     [](const OpSpec& op) { return op.kind == OpKind::kConv2d || op.kind == OpKind::kPool; });
}

Status Workload::CheckDims(const Dims& dims) const {
  std::vector<std::string> declared;
  for (const auto& [name, range] : dims_)
    declared.push_back(name + " in [" + std::to_string(range.min) + ", " + std::to_string(range.max) + "]");
  for (const auto& [name, value] : dims) {
    auto it = dims_.find(name);
    if (it == dims_.end())
      return Status::InvalidArgument("workload '" + name_ + "' has no dim '" + name + "'; its dims: " + JoinNames(declared));
    if (value < it->second.min || value > it->second.max)
      return Status::InvalidArgument("dim '" + name + "' = " + std::to_string(value) + " is outside its range [" +
                                     std::to_string(it->second.min) + ", " + std::to_string(it->second.max) + "]");
  }
  for (const auto& [name, range] : dims_)
    if (!dims.count(name))
      return Status::InvalidArgument("missing dim '" + name + "'; workload '" + name_ + "' needs: " + JoinNames(declared));
  return Status::Ok();
}

Dims Workload::TypicalDims() const {
  Dims dims;
  for (const auto& [name, range] : dims_) dims[name] = range.typical;
  return dims;
}

Result<std::map<std::string, Shape>> Workload::InferShapes(const Dims& dims) const {
  CRMAP_RETURN_IF_ERROR(CheckDims(dims));
  auto check = [](const std::string& name, const Shape& shape) {
    if (shape.size() > kMaxTensorRank)
      return Status::InvalidArgument("tensor '" + name + "' has rank " + std::to_string(shape.size()) +
                                     "; at most " + std::to_string(kMaxTensorRank) + " dims are supported");
    double elements = 1;
    for (int64_t size : shape) elements *= static_cast<double>(size);
    if (elements > static_cast<double>(kMaxTensorElements))
      return Status::InvalidArgument("tensor '" + name + "' " + ShapeText(shape) + " has more than " +
                                     std::to_string(kMaxTensorElements) + " elements");
    return Status::Ok();
  };
  std::map<std::string, Shape> shapes;
  for (const auto& input : inputs_) {
    Shape shape;
    for (const auto& size : input.shape) shape.push_back(size.Evaluate(dims));
    CRMAP_RETURN_IF_ERROR(check(input.name, shape));
    shapes[input.name] = shape;
  }
  for (const auto& op : ops_) {
    std::vector<const Shape*> in;
    for (const auto& name : op.inputs) in.push_back(&shapes.at(name));
    CRMAP_ASSIGN_OR_RETURN(Shape shape, InferOpShape(op, in));
    CRMAP_RETURN_IF_ERROR(check(op.name, shape));
    shapes[op.name] = shape;
  }
  return shapes;
}

Result<Workload> ParseWorkload(const std::string& text, const std::string& source, const std::string& origin) {
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(text, source));
  auto fail = [&](const Status& status) { return status.WithContext(source); };
  Status known = CheckKnownFields(json, {"format", "name", "description", "seed", "dims", "accuracy_budget",
                                         "memory_budget_bytes", "inputs", "ops", "outputs"},
                                  "workload");
  if (!known.ok()) return fail(known);
  auto format = GetString(json, "format", "workload");
  if (!format.ok()) return fail(format.status());
  if (*format != kWorkloadFormat)
    return fail(Status::InvalidArgument("unsupported format '" + *format + "'; this crmap reads '" +
                                        kWorkloadFormat + "'"));

  Workload w;
  auto name = GetString(json, "name", "workload");
  if (!name.ok()) return fail(name.status());
  if (!IsIdentifier(*name)) return fail(Status::InvalidArgument("workload name must use [a-z0-9_]"));
  w.name_ = *name;
  auto description = GetStringOr(json, "description", "", "workload");
  if (!description.ok()) return fail(description.status());
  w.description_ = *description;
  auto seed = GetIntOr(json, "seed", 1, "workload");
  if (!seed.ok()) return fail(seed.status());
  w.seed_ = static_cast<uint64_t>(*seed);
  auto budget = GetIntOr(json, "memory_budget_bytes", w.memory_budget_bytes_, "workload");
  if (!budget.ok()) return fail(budget.status());
  if (*budget < 1) return fail(Status::InvalidArgument("memory_budget_bytes must be >= 1"));
  w.memory_budget_bytes_ = *budget;

  if (json.contains("accuracy_budget")) {
    const Json& acc = json["accuracy_budget"];
    Status st = CheckKnownFields(acc, {"metric", "f32", "bf16"}, "accuracy_budget");
    if (!st.ok()) return fail(st);
    auto metric = GetStringOr(acc, "metric", "", "accuracy_budget");
    if (!metric.ok()) return fail(metric.status());
    if (*metric != kAccuracyMetric)
      return fail(Status::InvalidArgument(
          "accuracy_budget: 'metric' must be \"scaled_error\" (max |got - ref| / max |ref| of each output; "
          "absolute errors are no longer accepted as budgets, see docs/search-space.md), got \"" + *metric + "\""));
    auto f32 = GetNumberOr(acc, "f32", w.accuracy_budget_.f32, "accuracy_budget");
    auto bf16 = GetNumberOr(acc, "bf16", w.accuracy_budget_.bf16, "accuracy_budget");
    if (!f32.ok()) return fail(f32.status());
    if (!bf16.ok()) return fail(bf16.status());
    if (!(*f32 > 0 && *f32 <= 1) || !(*bf16 > 0 && *bf16 <= 1))
      return fail(Status::InvalidArgument("accuracy budgets are scaled errors in (0, 1]"));
    w.accuracy_budget_ = {*f32, *bf16};
  }

  if (!json.contains("dims") || !json["dims"].is_object() || json["dims"].empty())
    return fail(Status::InvalidArgument("field 'dims' must be an object of {name: {min, max, typical}}"));
  for (const auto& item : json["dims"].items()) {
    std::string where = "dim '" + item.key() + "'";
    if (!IsIdentifier(item.key())) return fail(Status::InvalidArgument(where + ": names use [a-z0-9_]"));
    Status st = CheckKnownFields(item.value(), {"min", "max", "typical", "batching"}, where);
    if (!st.ok()) return fail(st);
    auto lo = GetInt(item.value(), "min", where);
    auto hi = GetInt(item.value(), "max", where);
    if (!lo.ok()) return fail(lo.status());
    if (!hi.ok()) return fail(hi.status());
    auto typical = GetIntOr(item.value(), "typical", *lo, where);
    if (!typical.ok()) return fail(typical.status());
    if (*lo < 1 || *hi < *lo || *typical < *lo || *typical > *hi)
      return fail(Status::InvalidArgument(where + ": need 1 <= min <= typical <= max"));
    auto batching = GetStringOr(item.value(), "batching", "match", where);
    if (!batching.ok()) return fail(batching.status());
    if (*batching != "sum" && *batching != "match")
      return fail(Status::InvalidArgument(where + ": batching must be \"sum\" (requests add up along it in a batch) "
                                          "or \"match\" (requests batch only with equal values), got \"" +
                                          *batching + "\""));
    if (*batching == "sum" && !w.batch_dim_.empty())
      return fail(Status::InvalidArgument(where + ": only one dim may have batching \"sum\"; '" + w.batch_dim_ +
                                          "' has it already"));
    if (*batching == "sum") w.batch_dim_ = item.key();
    w.dims_[item.key()] = {*lo, *hi, *typical};
  }

  std::set<std::string> names;
  std::set<std::string> used_dims;
  if (!json.contains("inputs") || !json["inputs"].is_array() || json["inputs"].empty())
    return fail(Status::InvalidArgument("field 'inputs' must be a non-empty array of {name, shape}"));
  for (const auto& in : json["inputs"]) {
    Status st = CheckKnownFields(in, {"name", "shape"}, "input");
    if (!st.ok()) return fail(st);
    auto in_name = GetString(in, "name", "input");
    if (!in_name.ok()) return fail(in_name.status());
    std::string where = "input '" + *in_name + "'";
    if (!IsIdentifier(*in_name)) return fail(Status::InvalidArgument(where + ": names use [a-z0-9_]"));
    if (!names.insert(*in_name).second) return fail(Status::InvalidArgument(where + ": duplicate name"));
    if (!in.contains("shape") || !in["shape"].is_array() || in["shape"].empty())
      return fail(Status::InvalidArgument(where + ": 'shape' must be a non-empty array"));
    GraphInput input{*in_name, {}};
    for (const auto& size : in["shape"]) {
      auto expr = ParseSizeExpr(size, where);
      if (!expr.ok()) return fail(expr.status());
      for (const auto& dim : expr->dim_names) {
        if (!w.dims_.count(dim)) return fail(Status::InvalidArgument(where + ": undeclared dim '" + dim + "'"));
        used_dims.insert(dim);
      }
      input.shape.push_back(*expr);
    }
    w.inputs_.push_back(input);
  }
  for (const auto& [dim, range] : w.dims_)
    if (!used_dims.count(dim)) return fail(Status::InvalidArgument("dim '" + dim + "' is declared but no input uses it"));

  if (!json.contains("ops") || !json["ops"].is_array() || json["ops"].empty())
    return fail(Status::InvalidArgument("field 'ops' must be a non-empty array"));
  for (size_t i = 0; i < json["ops"].size(); ++i) {
    auto op = ParseOp(json["ops"][i], i);
    if (!op.ok()) return fail(op.status());
    if (!names.insert(op->name).second)
      return fail(Status::InvalidArgument("op '" + op->name + "': duplicate name"));
    for (const auto& input : op->inputs) {
      if (input == op->name || !names.count(input))
        return fail(Status::InvalidArgument("op '" + op->name + "': input '" + input +
                                            "' is not a graph input or an earlier op (ops must be in topological order)"));
    }
    w.ops_.push_back(*op);
  }

  if (!json.contains("outputs") || !json["outputs"].is_array() || json["outputs"].empty())
    return fail(Status::InvalidArgument("field 'outputs' must be a non-empty array of op names"));
  for (const auto& out : json["outputs"]) {
    if (!out.is_string() || !w.FindOp(out.get<std::string>()))
      return fail(Status::InvalidArgument("outputs: '" + out.dump() + "' is not an op name"));
    w.outputs_.push_back(out.get<std::string>());
  }

  // merge_heads is a layout change written by its producer: the producer must be a matmul whose output
  // nothing else reads.
  for (const auto& op : w.ops_) {
    if (op.kind != OpKind::kMergeHeads) continue;
    const OpSpec* producer = w.FindOp(op.inputs[0]);
    if (!producer || producer->kind != OpKind::kMatmul || w.ConsumersOf(producer->name).size() != 1 ||
        w.IsGraphOutput(producer->name))
      return fail(Status::InvalidArgument("op '" + op.name +
                                          "': merge_heads must read a matmul output that nothing else reads"));
  }

  // Shapes must be consistent across the declared ranges: check the corners and the typical point.
  Dims lo, hi;
  for (const auto& [dim, range] : w.dims_) {
    lo[dim] = range.min;
    hi[dim] = range.max;
  }
  for (const Dims& dims : {lo, hi, w.TypicalDims()}) {
    auto shapes = w.InferShapes(dims);
    if (!shapes.ok()) return fail(shapes.status().WithContext("at dims " + DimsToText(dims)));
  }

  // Batching is serving metadata: it changes no kernel and no measurement, so it is not part of the fingerprint
  // (a tuning database stays valid when a workload file gains or changes it).
  Json canonical = json;
  for (auto& dim : canonical["dims"]) dim.erase("batching");
  w.canonical_json_ = canonical.dump();
  w.origin_ = origin;
  w.fingerprint_ = HexDigest(Fnv1a64(w.canonical_json_));
  return w;
}

}  // namespace crmap
