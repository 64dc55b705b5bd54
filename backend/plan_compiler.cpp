#include "backend/plan_compiler.h"

#include <chrono>
#include <cstring>
#include <new>

#include <omp.h>

#include "backend/host.h"
#include "backend/tensor_layout.h"
#include "common/tensor_data.h"
#include "search_space/fusion.h"

namespace crmap {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using md_t = dnnl::memory::desc;

namespace {

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

dnnl::algorithm EltwiseAlgorithm(EltwiseAlg alg) {
  switch (alg) {
    case EltwiseAlg::kRelu: return dnnl::algorithm::eltwise_relu;
    case EltwiseAlg::kGeluTanh: return dnnl::algorithm::eltwise_gelu_tanh;
    case EltwiseAlg::kGeluErf: return dnnl::algorithm::eltwise_gelu_erf;
    case EltwiseAlg::kSigmoid: return dnnl::algorithm::eltwise_logistic;
    case EltwiseAlg::kSwish: return dnnl::algorithm::eltwise_swish;
    case EltwiseAlg::kTanh: return dnnl::algorithm::eltwise_tanh;
    case EltwiseAlg::kLinear: return dnnl::algorithm::eltwise_linear;
  }
  return dnnl::algorithm::eltwise_relu;
}

}  // namespace

// Builds one Plan. Pass 1 (the Lower* methods) creates primitives and records every tensor as a Slot with
// its descriptor; Allocate() then checks the memory budget and creates the memories.
class PlanBuilder {
 public:
  PlanBuilder(const Workload& workload, const SearchSpace& space, const Dims& dims, const Config& config,
              const CompileOptions& options)
      : workload_(workload), space_(space), dims_(dims), config_(config), options_(options),
        engine_(dnnl::engine::kind::cpu, 0) {}

  Result<Plan> Build();

 private:
  // A tensor's storage: its own buffer (parent < 0) or a view into the root buffer of another slot.
  struct Slot {
    md_t desc;
    int parent = -1;
    size_t offset_bytes = 0;
    HostTensor constant;    // weights and other constants: host data to place at allocation
    md_t constant_source;   // layout of `constant` (reordered into `desc` at plan time)
    dnnl::memory memory;
  };
  struct PendingStep {
    KernelInfo kernel;
    dnnl::primitive primitive;
    std::vector<std::pair<int, int>> args;  // (DNNL_ARG_*, slot)
    md_t scratchpad;
  };

  Status ReadConfig();
  int NewSlot(const md_t& desc);
  int ViewSlot(int of, const md_t& desc, size_t extra_offset_bytes = 0);
  int ConstantSlot(const md_t& desc, HostTensor data, const md_t& source);
  int Require(int slot, const md_t& wanted, const std::string& consumer);
  Status AddStep(const std::string& name, const char* kind, const dnnl::primitive_desc_base& pd,
                 dnnl::primitive primitive, std::vector<std::pair<int, int>> args);
  // The slot of `op`'s input `k` as a dense f32 tensor (reordered when its layout or type differs).
  int DenseF32Input(const OpSpec& op, size_t k);
  // AddStep for an op whose single output is the primitive's destination: a new slot of pd's dst descriptor
  // becomes DNNL_ARG_DST and the op's tensor.
  Status AddOutputStep(const std::string& name, const char* kind, const dnnl::primitive_desc_base& pd,
                       dnnl::primitive primitive, std::vector<std::pair<int, int>> args);
  Status CheckKernel(const std::string& op, const dnnl::primitive_desc_base& pd, bool compute);
  Status Unsupported(const std::string& op, const dnnl::error& e) const;
  dnnl::primitive_attr MakeAttr() const;
  // Appends chain[first..depth) to `post_ops`; binary operands are reordered to the layout of `dst_desc`.
  Status AppendPostOps(size_t op_index, int depth, size_t first, const md_t& dst_desc, dnnl::post_ops* post_ops,
                       std::vector<std::pair<int, int>>* args);
  void BindChainOutput(size_t op_index, int depth, int slot);
  int FusionDepth(size_t op_index) const;
  int64_t MemoryBudget() const {
    return options_.memory_budget_bytes > 0 ? options_.memory_budget_bytes : space_.constraints().memory_budget_bytes;
  }
  // The op's seeded weights; the time spent generating them is kept out of compile_ms.
  OpParameters Parameters(const OpSpec& op, const Shape& input_shape);

  Status LowerLinear(size_t i);
  Status LowerMatmul(size_t i);
  Status LowerConv(size_t i);
  Status LowerEltwise(size_t i);
  Status LowerAdd(size_t i);
  Status LowerLayerNorm(size_t i);
  Status LowerSoftmax(size_t i);
  Status LowerPool(size_t i);
  Status LowerView(size_t i);
  // The first of `bias_layouts` must be plain: the host data is in that layout.
  Status AddBiasStep(const std::string& op, int dst_slot, const std::vector<md_t>& bias_layouts, HostTensor bias);
  Status Allocate(Plan* plan);

  const Workload& workload_;
  const SearchSpace& space_;
  const Dims& dims_;
  const Config& config_;
  const CompileOptions& options_;
  dnnl::engine engine_;

  std::map<std::string, Shape> shapes_;
  std::map<std::string, int> tensor_slot_;
  std::vector<Slot> slots_;
  std::vector<PendingStep> steps_;
  std::vector<bool> absorbed_;
  std::vector<std::tuple<int, md_t, int>> reorder_cache_;  // (from slot, wanted desc, result slot)
  dt compute_type_ = dt::f32;
  ImageLayout layout_ = ImageLayout::kPlain;
  bool packed_weights_ = false;
  int threads_ = 1;
  bool fault_applied_ = false;
  int reorders_ = 0;
  double compile_ms_ = 0;
  double data_ms_ = 0;
};

Status PlanBuilder::ReadConfig() {
  CRMAP_RETURN_IF_ERROR(space_.Validate(config_));
  if (space_.workload_name() != workload_.name())
    return Status::InvalidArgument("search space of '" + space_.workload_name() + "' used with workload '" +
                                   workload_.name() + "'");
  compute_type_ = space_.ValueOf(config_, KnobKind::kPrecision) == "bf16" ? dt::bf16 : dt::f32;
  layout_ = ParseImageLayout(space_.ValueOf(config_, KnobKind::kLayout));
  packed_weights_ = space_.ValueOf(config_, KnobKind::kWeights) == "packed";
  threads_ = std::stoi(space_.ValueOf(config_, KnobKind::kThreads));
  return Status::Ok();
}

int PlanBuilder::FusionDepth(size_t op_index) const {
  int k = space_.FindKnob("fuse." + workload_.ops()[op_index].name);
  return k < 0 ? 0 : config_.values[k];
}

OpParameters PlanBuilder::Parameters(const OpSpec& op, const Shape& input_shape) {
  auto start = std::chrono::steady_clock::now();
  OpParameters params = GenerateOpParameters(workload_, op, input_shape);
  data_ms_ += MillisSince(start);
  return params;
}

int PlanBuilder::DenseF32Input(const OpSpec& op, size_t k) {
  int slot = tensor_slot_.at(op.inputs[k]);
  if (!IsDense(slots_[slot].desc) || slots_[slot].desc.data_type() != dt::f32)
    slot = Require(slot, PlainDesc(shapes_.at(op.inputs[k]), dt::f32), op.name);
  return slot;
}

Status PlanBuilder::AddOutputStep(const std::string& name, const char* kind, const dnnl::primitive_desc_base& pd,
                                  dnnl::primitive primitive, std::vector<std::pair<int, int>> args) {
  const int dst = NewSlot(pd.dst_desc());
  args.push_back({DNNL_ARG_DST, dst});
  CRMAP_RETURN_IF_ERROR(AddStep(name, kind, pd, std::move(primitive), std::move(args)));
  tensor_slot_[name] = dst;
  return Status::Ok();
}

int PlanBuilder::NewSlot(const md_t& desc) {
  slots_.push_back(Slot{desc, -1, 0, {}, {}, {}});
  return static_cast<int>(slots_.size()) - 1;
}

int PlanBuilder::ViewSlot(int of, const md_t& desc, size_t extra_offset_bytes) {
  int root = slots_[of].parent < 0 ? of : slots_[of].parent;
  size_t offset = slots_[of].offset_bytes + extra_offset_bytes;
  slots_.push_back(Slot{desc, root, offset, {}, {}, {}});
  return static_cast<int>(slots_.size()) - 1;
}

int PlanBuilder::ConstantSlot(const md_t& desc, HostTensor data, const md_t& source) {
  slots_.push_back(Slot{desc, -1, 0, std::move(data), source, {}});
  return static_cast<int>(slots_.size()) - 1;
}

dnnl::primitive_attr PlanBuilder::MakeAttr() const {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

Status PlanBuilder::Unsupported(const std::string& op, const dnnl::error& e) const {
  const HostInfo& host = DetectHost();
  if (e.status == dnnl_unimplemented) {
    return Status::Unsupported(op + ": oneDNN " + host.onednn_version + " implements no kernel for this " +
                               "precision/layout/post-op combination on this CPU (" + host.isa + ")");
  }
  if (e.status == dnnl_invalid_arguments)
    return Status::InvalidArgument(op + ": oneDNN rejects the shapes or attributes: " + e.what());
  if (e.status == dnnl_out_of_memory) return Status::ResourceExhausted(op + ": out of memory");
  return Status::Internal(op + ": oneDNN error: " + e.what());
}

Status PlanBuilder::CheckKernel(const std::string& op, const dnnl::primitive_desc_base& pd, bool compute) {
  std::string impl = pd.impl_info_str();
  if (compute && !options_.allow_reference_kernels && impl.rfind("ref", 0) == 0) {
    return Status::Unsupported(op + ": oneDNN offers only its reference kernel (" + impl + ") for this " +
                               "combination on " + DetectHost().isa + "; allow it with allow_reference_kernels");
  }
  return Status::Ok();
}

Status PlanBuilder::AddStep(const std::string& name, const char* kind, const dnnl::primitive_desc_base& pd,
                            dnnl::primitive primitive, std::vector<std::pair<int, int>> args) {
  PendingStep step;
  std::string detail;
  for (const auto& [arg, slot] : args) {
    if (arg == DNNL_ARG_SRC || arg == DNNL_ARG_DST || arg == DNNL_ARG_WEIGHTS)
      detail += std::string(detail.empty() ? "" : " ") + (arg == DNNL_ARG_SRC ? "src:" : arg == DNNL_ARG_DST ? "dst:" : "wei:") +
                DescribeDesc(slots_[slot].desc);
  }
  step.kernel = KernelInfo{name, kind, pd.impl_info_str(), detail};
  step.primitive = std::move(primitive);
  step.args = std::move(args);
  step.scratchpad = pd.scratchpad_desc();
  steps_.push_back(std::move(step));
  return Status::Ok();
}

int PlanBuilder::Require(int slot, const md_t& wanted, const std::string& consumer) {
  if (slots_[slot].desc == wanted) return slot;
  for (const auto& [from, desc, result] : reorder_cache_)
    if (from == slot && desc == wanted) return result;
  int target = NewSlot(wanted);
  dnnl::reorder::primitive_desc pd(engine_, slots_[slot].desc, engine_, wanted);
  AddStep("reorder for " + consumer, "reorder", pd, dnnl::reorder(pd),
          {{DNNL_ARG_SRC, slot}, {DNNL_ARG_DST, target}});
  reorder_cache_.emplace_back(slot, wanted, target);
  ++reorders_;
  return target;
}

Status PlanBuilder::AppendPostOps(size_t op_index, int depth, size_t first, const md_t& dst_desc,
                                  dnnl::post_ops* post_ops, std::vector<std::pair<int, int>>* args) {
  std::vector<FusableStep> chain = FusionChain(workload_, op_index);
  for (size_t j = first; j < static_cast<size_t>(depth); ++j) {
    const FusableStep& step = chain[j];
    if (step.kind == PostOpKind::kEltwise) {
      const OpSpec& e = workload_.ops()[step.absorbed_op];
      post_ops->append_eltwise(1.0f, EltwiseAlgorithm(e.eltwise), e.alpha, e.beta);
    } else if (step.kind == PostOpKind::kAdd) {
      const Shape& shape = shapes_.at(step.other_input);
      // The operand must be in the destination's layout: reorder it once if it is not.
      md_t full = dst_desc.data.ndims == static_cast<int>(shape.size()) ? dst_desc : PlainDesc(shape, dt::f32);
      int other = Require(tensor_slot_.at(step.other_input), full, workload_.ops()[op_index].name);
      if (!(full == dst_desc)) other = ViewSlot(other, dst_desc);
      int index = post_ops->len();
      post_ops->append_binary(dnnl::algorithm::binary_add, dst_desc);
      args->push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, other});
    }
  }
  return Status::Ok();
}

void PlanBuilder::BindChainOutput(size_t op_index, int depth, int slot) {
  const OpSpec& op = workload_.ops()[op_index];
  std::vector<FusableStep> chain = FusionChain(workload_, op_index);
  tensor_slot_[op.name] = slot;
  for (int j = 0; j < depth; ++j) {
    if (chain[j].kind == PostOpKind::kBias) continue;
    absorbed_[chain[j].absorbed_op] = true;
    tensor_slot_[workload_.ops()[chain[j].absorbed_op].name] = slot;
  }
}

Status PlanBuilder::AddBiasStep(const std::string& op, int dst_slot, const std::vector<md_t>& bias_layouts,
                                HostTensor bias) {
  // A separate, broadcast bias add: what a framework without fusion runs. oneDNN's jit binary kernel takes
  // the broadcast operand only in some layouts (on AVX2 a plain [1, C, 1, 1] next to nChw8c gets ref:any),
  // so try the layouts in order and keep the first jit one.
  const md_t& dst = slots_[dst_slot].desc;
  for (size_t i = 0; i < bias_layouts.size(); ++i) {
    try {
      dnnl::binary::desc desc(dnnl::algorithm::binary_add, dst, bias_layouts[i], dst);
      dnnl::binary::primitive_desc pd(desc, MakeAttr(), engine_);
      if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0 && i + 1 < bias_layouts.size()) continue;
      int bias_slot = ConstantSlot(bias_layouts[i], bias, bias_layouts[0]);
      return AddStep(op + ".bias", "binary", pd, dnnl::binary(pd),
                     {{DNNL_ARG_SRC_0, dst_slot}, {DNNL_ARG_SRC_1, bias_slot}, {DNNL_ARG_DST, dst_slot}});
    } catch (const dnnl::error& e) {
      if (i + 1 == bias_layouts.size()) return Unsupported(op + ".bias", e);
    }
  }
  return Status::Internal(op + ".bias: no bias layout to try");
}

Status PlanBuilder::LowerLinear(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const Shape& x_shape = shapes_.at(op.inputs[0]);
  const Shape& y_shape = shapes_.at(op.name);
  int64_t k = x_shape.back(), n = op.out_features, m = ElementCount(x_shape) / k;
  int depth = FusionDepth(i);
  bool fused_bias = op.bias && depth >= 1;
  OpParameters params = Parameters(op, x_shape);

  int x = Require(tensor_slot_.at(op.inputs[0]), PlainDesc(x_shape, compute_type_), op.name);
  md_t src = PlainDesc({m, k}, compute_type_);
  int src_slot = ViewSlot(x, src);
  // Stored weights are [out, in] row-major, i.e. a [K, N] matrix with strides (1, K): tag ba.
  md_t stored = md_t({k, n}, dt::f32, tag::ba);
  md_t weights = packed_weights_ ? md_t({k, n}, compute_type_, tag::any) : md_t({k, n}, compute_type_, tag::ba);
  bool wrong_layout = options_.fault == PlanFault::kWrongLayout && !fault_applied_;
  if (wrong_layout) {
    weights = md_t({k, n}, dt::f32, tag::ab);
    stored = weights;  // the [N, K] data is copied as if it were [K, N]: the injected defect
    fault_applied_ = true;
  }
  md_t bias = md_t({1, n}, dt::f32, tag::ab);
  md_t dst = PlainDesc({m, n}, dt::f32);

  std::vector<std::pair<int, int>> args;
  dnnl::post_ops post_ops;
  CRMAP_RETURN_IF_ERROR(AppendPostOps(i, depth, op.bias ? 1 : 0, dst, &post_ops, &args));
  dnnl::primitive_attr attr = MakeAttr();
  attr.set_post_ops(post_ops);
  try {
    dnnl::matmul::desc desc = fused_bias ? dnnl::matmul::desc(src, weights, bias, dst)
                                         : dnnl::matmul::desc(src, weights, dst);
    dnnl::matmul::primitive_desc pd(desc, attr, engine_);
    CRMAP_RETURN_IF_ERROR(CheckKernel(op.name, pd, true));
    int weights_slot = ConstantSlot(pd.weights_desc(), params.weight, stored);
    int dst_slot = NewSlot(pd.dst_desc());
    args.push_back({DNNL_ARG_SRC, src_slot});
    args.push_back({DNNL_ARG_WEIGHTS, weights_slot});
    args.push_back({DNNL_ARG_DST, dst_slot});
    if (fused_bias) args.push_back({DNNL_ARG_BIAS, ConstantSlot(bias, params.bias, bias)});
    CRMAP_RETURN_IF_ERROR(AddStep(op.name, "matmul", pd, dnnl::matmul(pd), args));
    if (op.bias && !fused_bias) CRMAP_RETURN_IF_ERROR(AddBiasStep(op.name, dst_slot, {bias}, params.bias));
    BindChainOutput(i, depth, ViewSlot(dst_slot, PlainDesc(y_shape, dt::f32)));
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerMatmul(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const Shape& y_shape = shapes_.at(op.name);
  int depth = FusionDepth(i);
  int a = tensor_slot_.at(op.inputs[0]);
  int b = tensor_slot_.at(op.inputs[1]);
  if (compute_type_ != dt::f32 || StridesOf(slots_[a].desc).empty())
    a = Require(a, PlainDesc(shapes_.at(op.inputs[0]), compute_type_), op.name);
  if (compute_type_ != dt::f32 || StridesOf(slots_[b].desc).empty())
    b = Require(b, PlainDesc(shapes_.at(op.inputs[1]), compute_type_), op.name);

  // A matmul read by merge_heads writes [B, H, S, D] with the strides of [B, S, H, D]: the merge is free.
  md_t dst = PlainDesc(y_shape, dt::f32);
  std::vector<size_t> consumers = workload_.ConsumersOf(op.name);
  bool writes_merged = consumers.size() == 1 && workload_.ops()[consumers[0]].kind == OpKind::kMergeHeads;
  if (writes_merged) {
    int64_t h = y_shape[1], s = y_shape[2], d = y_shape[3];
    dst = md_t(ToDnnlDims(y_shape), dt::f32, dnnl::memory::dims{s * h * d, d, h * d, 1});
  }

  std::vector<std::pair<int, int>> args;
  dnnl::post_ops post_ops;
  CRMAP_RETURN_IF_ERROR(AppendPostOps(i, depth, 0, dst, &post_ops, &args));
  dnnl::primitive_attr attr = MakeAttr();
  attr.set_post_ops(post_ops);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      dnnl::matmul::desc desc(slots_[a].desc, slots_[b].desc, dst);
      dnnl::matmul::primitive_desc pd(desc, attr, engine_);
      Status kernel = CheckKernel(op.name, pd, true);
      if (!kernel.ok() && attempt == 0) throw dnnl::error(dnnl_unimplemented, "only a reference kernel");
      CRMAP_RETURN_IF_ERROR(kernel);
      int dst_slot = NewSlot(pd.dst_desc());
      args.push_back({DNNL_ARG_SRC, a});
      args.push_back({DNNL_ARG_WEIGHTS, b});
      args.push_back({DNNL_ARG_DST, dst_slot});
      CRMAP_RETURN_IF_ERROR(AddStep(op.name, "matmul", pd, dnnl::matmul(pd), args));
      BindChainOutput(i, depth, dst_slot);
      return Status::Ok();
    } catch (const dnnl::error& e) {
      if (attempt == 1 || e.status != dnnl_unimplemented) return Unsupported(op.name, e);
      // Strided views were refused (or got only a reference kernel): copy both operands to contiguous
      // buffers and retry.
      a = Require(a, PlainDesc(shapes_.at(op.inputs[0]), compute_type_), op.name);
      b = Require(b, PlainDesc(shapes_.at(op.inputs[1]), compute_type_), op.name);
    }
  }
  return Status::Internal(op.name + ": unreachable");
}

Status PlanBuilder::LowerConv(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const Shape& x_shape = shapes_.at(op.inputs[0]);
  const Shape& y_shape = shapes_.at(op.name);
  int depth = FusionDepth(i);
  bool fused_bias = op.bias && depth >= 1;
  OpParameters params = Parameters(op, x_shape);
  tag image = ImageTag(layout_, DetectHost().blocked_channels);

  int64_t g = op.groups, oc = op.out_features, ic = x_shape[1];
  dnnl::memory::dims weight_dims = g > 1 ? dnnl::memory::dims{g, oc / g, ic / g, op.kernel[0], op.kernel[1]}
                                         : dnnl::memory::dims{oc, ic, op.kernel[0], op.kernel[1]};
  tag stored_tag = g > 1 ? tag::goihw : tag::oihw;
  md_t stored(weight_dims, dt::f32, stored_tag);
  md_t weights(weight_dims, compute_type_, packed_weights_ ? tag::any : stored_tag);
  if (options_.fault == PlanFault::kWrongLayout && !fault_applied_) {
    weights = md_t(weight_dims, dt::f32, g > 1 ? tag::giohw : tag::iohw);
    stored = weights;  // oihw data copied as if it were iohw (in and out swapped): the injected defect
    fault_applied_ = true;
  }
  md_t src(ToDnnlDims(x_shape), compute_type_, image);
  md_t dst(ToDnnlDims(y_shape), dt::f32, image);
  md_t bias({oc}, dt::f32, tag::a);
  dnnl::memory::dims strides{op.stride[0], op.stride[1]};
  dnnl::memory::dims padding{op.padding[0], op.padding[1]};

  auto make_desc = [&](const md_t& dst_desc) {
    return fused_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                        dnnl::algorithm::convolution_direct, src, weights, bias,
                                                        dst_desc, strides, padding, padding)
                      : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                        dnnl::algorithm::convolution_direct, src, weights,
                                                        dst_desc, strides, padding, padding);
  };
  try {
    if (layout_ == ImageLayout::kAny) {
      // Binary post-op operands need a concrete layout: learn the kernel's choice from a probe first.
      dnnl::convolution_forward::primitive_desc probe(make_desc(dst), MakeAttr(), engine_);
      dst = probe.dst_desc();
    }
    std::vector<std::pair<int, int>> args;
    dnnl::post_ops post_ops;
    CRMAP_RETURN_IF_ERROR(AppendPostOps(i, depth, op.bias ? 1 : 0, dst, &post_ops, &args));
    dnnl::primitive_attr attr = MakeAttr();
    attr.set_post_ops(post_ops);
    dnnl::convolution_forward::primitive_desc pd(make_desc(dst), attr, engine_);
    CRMAP_RETURN_IF_ERROR(CheckKernel(op.name, pd, true));
    int src_slot = Require(tensor_slot_.at(op.inputs[0]), pd.src_desc(), op.name);
    int weights_slot = ConstantSlot(pd.weights_desc(), params.weight, stored);
    int dst_slot = NewSlot(pd.dst_desc());
    args.push_back({DNNL_ARG_SRC, src_slot});
    args.push_back({DNNL_ARG_WEIGHTS, weights_slot});
    args.push_back({DNNL_ARG_DST, dst_slot});
    if (fused_bias) args.push_back({DNNL_ARG_BIAS, ConstantSlot(bias, params.bias, bias)});
    CRMAP_RETURN_IF_ERROR(AddStep(op.name, "convolution", pd, dnnl::convolution_forward(pd), args));
    if (op.bias && !fused_bias) {
      dnnl::memory::dims channel{1, oc, 1, 1};
      HostTensor b = params.bias;
      b.shape = {1, oc, 1, 1};
      std::vector<md_t> layouts;
      for (tag t : {tag::nchw, tag::nhwc, tag::nChw8c, tag::nChw16c}) layouts.emplace_back(channel, dt::f32, t);
      CRMAP_RETURN_IF_ERROR(AddBiasStep(op.name, dst_slot, layouts, b));
    }
    BindChainOutput(i, depth, dst_slot);
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerEltwise(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const int x = DenseF32Input(op, 0);
  try {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, EltwiseAlgorithm(op.eltwise),
                                     slots_[x].desc, op.alpha, op.beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, MakeAttr(), engine_);
    CRMAP_RETURN_IF_ERROR(AddOutputStep(op.name, "eltwise", pd, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, x}}));
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerAdd(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const int a = DenseF32Input(op, 0);
  int b = Require(tensor_slot_.at(op.inputs[1]), slots_[a].desc, op.name);
  try {
    dnnl::binary::desc desc(dnnl::algorithm::binary_add, slots_[a].desc, slots_[b].desc, slots_[a].desc);
    dnnl::binary::primitive_desc pd(desc, MakeAttr(), engine_);
    CRMAP_RETURN_IF_ERROR(
        AddOutputStep(op.name, "binary", pd, dnnl::binary(pd), {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}}));
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerLayerNorm(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const Shape& shape = shapes_.at(op.inputs[0]);
  OpParameters params = Parameters(op, shape);
  int x = Require(tensor_slot_.at(op.inputs[0]), PlainDesc(shape, dt::f32), op.name);
  try {
    dnnl::layer_normalization_forward::desc desc(
        dnnl::prop_kind::forward_inference, slots_[x].desc, op.epsilon,
        dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, MakeAttr(), engine_);
    md_t channel({shape.back()}, dt::f32, tag::a);
    CRMAP_RETURN_IF_ERROR(AddOutputStep(op.name, "layer_normalization", pd, dnnl::layer_normalization_forward(pd),
                                        {{DNNL_ARG_SRC, x},
                                         {DNNL_ARG_SCALE, ConstantSlot(channel, params.gamma, channel)},
                                         {DNNL_ARG_SHIFT, ConstantSlot(channel, params.beta, channel)}}));
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerSoftmax(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const Shape& shape = shapes_.at(op.inputs[0]);
  int x = Require(tensor_slot_.at(op.inputs[0]), PlainDesc(shape, dt::f32), op.name);
  try {
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, slots_[x].desc,
                                     static_cast<int>(shape.size()) - 1);
    dnnl::softmax_forward::primitive_desc pd(desc, MakeAttr(), engine_);
    CRMAP_RETURN_IF_ERROR(AddOutputStep(op.name, "softmax", pd, dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, x}}));
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerPool(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  int x = tensor_slot_.at(op.inputs[0]);
  md_t dst(ToDnnlDims(shapes_.at(op.name)), dt::f32, tag::any);
  dnnl::memory::dims strides{op.stride[0], op.stride[1]}, kernel{op.kernel[0], op.kernel[1]};
  dnnl::memory::dims padding{op.padding[0], op.padding[1]};
  auto alg = op.pool == PoolAlg::kMax ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_include_padding;
  try {
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, slots_[x].desc, dst, strides, kernel,
                                     padding, padding);
    dnnl::pooling_forward::primitive_desc pd(desc, MakeAttr(), engine_);
    CRMAP_RETURN_IF_ERROR(AddOutputStep(op.name, "pooling", pd, dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, x}}));
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::LowerView(size_t i) {
  const OpSpec& op = workload_.ops()[i];
  const Shape& x_shape = shapes_.at(op.inputs[0]);
  const Shape& y_shape = shapes_.at(op.name);
  int x = tensor_slot_.at(op.inputs[0]);
  try {
    if (op.kind == OpKind::kSplitHeads) {
      x = Require(x, PlainDesc(x_shape, dt::f32), op.name);
      int64_t s = x_shape[1], f = x_shape[2], d = y_shape[3];
      md_t view(ToDnnlDims(y_shape), dt::f32, dnnl::memory::dims{s * f, d, f, 1});
      tensor_slot_[op.name] = ViewSlot(x, view, static_cast<size_t>(op.part * op.heads * d) * sizeof(float));
    } else if (op.kind == OpKind::kTranspose) {
      std::vector<int64_t> strides = StridesOf(slots_[x].desc);
      if (strides.empty()) {
        x = Require(x, PlainDesc(x_shape, dt::f32), op.name);
        strides = StridesOf(slots_[x].desc);
      }
      std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
      md_t view(ToDnnlDims(y_shape), slots_[x].desc.data_type(), dnnl::memory::dims(strides.begin(), strides.end()));
      tensor_slot_[op.name] = ViewSlot(x, view);
    } else {  // merge_heads: [B, H, S, D] stored as [B, S, H, D] is [B, S, H*D] row-major
      int64_t b = x_shape[0], h = x_shape[1], s = x_shape[2], d = x_shape[3];
      md_t merged_order(ToDnnlDims(x_shape), dt::f32, dnnl::memory::dims{s * h * d, d, h * d, 1});
      x = Require(x, merged_order, op.name);
      (void)b;
      tensor_slot_[op.name] = ViewSlot(x, PlainDesc(y_shape, dt::f32));
    }
  } catch (const dnnl::error& e) {
    return Unsupported(op.name, e);
  }
  return Status::Ok();
}

Status PlanBuilder::Allocate(Plan* plan) {
  int64_t bytes = 0, weight_bytes = 0;
  size_t scratchpad_bytes = 0;
  for (const auto& slot : slots_) {
    if (slot.parent >= 0) continue;
    bytes += static_cast<int64_t>(slot.desc.get_size());
    if (!slot.constant.empty()) weight_bytes += static_cast<int64_t>(slot.desc.get_size());
  }
  for (const auto& step : steps_) scratchpad_bytes = std::max(scratchpad_bytes, step.scratchpad.get_size());
  bytes += static_cast<int64_t>(scratchpad_bytes);
  const int64_t budget = MemoryBudget();
  if (bytes > budget) {
    return Status::ResourceExhausted("plan needs " + std::to_string(bytes) + " bytes, over the memory budget of " +
                                     std::to_string(budget) + " bytes (dims " + DimsToText(dims_) + ")");
  }
  plan->info_.peak_bytes = bytes;
  plan->info_.weight_bytes = weight_bytes;

  auto pack_start = std::chrono::steady_clock::now();
  try {
    for (auto& slot : slots_) {
      if (slot.parent >= 0) continue;
      slot.memory = dnnl::memory(slot.desc, engine_);
      plan->owned_.push_back(slot.memory);  // views point into it: the plan must keep every root alive
      if (slot.constant.empty()) continue;
      md_t source = slot.constant_source;
      if (source == slot.desc) {
        std::memcpy(slot.memory.get_data_handle(), slot.constant.values.data(), slot.desc.get_size());
      } else {
        dnnl::memory host(source, engine_, slot.constant.values.data());
        dnnl::stream stream(engine_);
        dnnl::reorder(host, slot.memory).execute(stream, host, slot.memory);
        stream.wait();
      }
    }
    for (auto& slot : slots_) {
      if (slot.parent < 0) continue;
      char* base = static_cast<char*>(slots_[slot.parent].memory.get_data_handle());
      slot.memory = dnnl::memory(slot.desc, engine_, base + slot.offset_bytes);
    }
    dnnl::memory scratchpad;
    if (scratchpad_bytes > 0) {
      scratchpad = dnnl::memory(md_t({static_cast<int64_t>(scratchpad_bytes)}, dt::u8, tag::a), engine_);
      plan->owned_.push_back(scratchpad);
    }
    for (auto& pending : steps_) {
      Plan::Step step{pending.kernel, pending.primitive, {}};
      for (const auto& [arg, slot] : pending.args) step.args[arg] = slots_[slot].memory;
      if (pending.scratchpad.get_size() > 0)
        step.args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(pending.scratchpad, engine_, scratchpad.get_data_handle());
      plan->info_.kernels.push_back(step.kernel);
      plan->steps_.push_back(std::move(step));
    }
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_out_of_memory)
      return Status::ResourceExhausted("out of memory allocating a plan of " + std::to_string(bytes) + " bytes");
    return Status::Internal(std::string("oneDNN error while allocating the plan: ") + e.what());
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory allocating a plan of " + std::to_string(bytes) + " bytes");
  }
  plan->info_.pack_ms = MillisSince(pack_start);
  return Status::Ok();
}

Result<Plan> PlanBuilder::Build() {
  CRMAP_RETURN_IF_ERROR(ReadConfig());
  CRMAP_ASSIGN_OR_RETURN(shapes_, workload_.InferShapes(dims_));
  if (compute_type_ == dt::bf16 && !DetectHost().has_bf16) {
    return Status::Unsupported("precision bf16: oneDNN " + DetectHost().onednn_version +
                               " implements bf16 compute only on AVX-512 (avx512_core) and newer; this CPU is " +
                               DetectHost().isa);
  }
  // Weights, inputs and outputs exist in every plan: if they alone exceed the budget, stop before generating
  // gigabytes of weights.
  int64_t at_least = 0;
  for (const auto& op : workload_.ops())
    at_least += OpParameterCount(op, shapes_.at(op.inputs[0])) * (compute_type_ == dt::bf16 ? 2 : 4);
  for (const auto& input : workload_.inputs()) at_least += ElementCount(shapes_.at(input.name)) * 4;
  for (const auto& output : workload_.outputs()) at_least += ElementCount(shapes_.at(output)) * 4;
  if (at_least > MemoryBudget()) {
    return Status::ResourceExhausted("plan needs at least " + std::to_string(at_least) + " bytes (weights, inputs, " +
                                     "outputs), over the memory budget of " + std::to_string(MemoryBudget()) +
                                     " bytes (dims " + DimsToText(dims_) + ")");
  }
  omp_set_num_threads(threads_);
  auto start = std::chrono::steady_clock::now();
  absorbed_.assign(workload_.ops().size(), false);

  for (const auto& input : workload_.inputs())
    tensor_slot_[input.name] = NewSlot(PlainDesc(shapes_.at(input.name), dt::f32));

  for (size_t i = 0; i < workload_.ops().size(); ++i) {
    if (absorbed_[i]) continue;
    Status status;
    try {
      switch (workload_.ops()[i].kind) {
        case OpKind::kLinear: status = LowerLinear(i); break;
        case OpKind::kMatmul: status = LowerMatmul(i); break;
        case OpKind::kConv2d: status = LowerConv(i); break;
        case OpKind::kEltwise: status = LowerEltwise(i); break;
        case OpKind::kAdd: status = LowerAdd(i); break;
        case OpKind::kLayerNorm: status = LowerLayerNorm(i); break;
        case OpKind::kSoftmax: status = LowerSoftmax(i); break;
        case OpKind::kPool: status = LowerPool(i); break;
        case OpKind::kSplitHeads:
        case OpKind::kTranspose:
        case OpKind::kMergeHeads: status = LowerView(i); break;
      }
    } catch (const dnnl::error& e) {
      status = Unsupported(workload_.ops()[i].name, e);  // reorders created inside a lowering
    } catch (const std::bad_alloc&) {
      status = Status::ResourceExhausted(workload_.ops()[i].name + ": out of memory generating its weights");
    }
    CRMAP_RETURN_IF_ERROR(status);
  }

  std::vector<std::pair<std::string, int>> outputs;
  try {
    for (const auto& name : workload_.outputs())
      outputs.emplace_back(name, Require(tensor_slot_.at(name), PlainDesc(shapes_.at(name), dt::f32), "output " + name));
  } catch (const dnnl::error& e) {
    return Unsupported("graph outputs", e);
  }
  if (options_.fault == PlanFault::kSkipOp) {
    for (size_t j = steps_.size(); j-- > 0;) {
      if (steps_[j].kernel.kind != "reorder") {
        steps_.erase(steps_.begin() + static_cast<long>(j));
        break;
      }
    }
  }
  compile_ms_ = MillisSince(start) - data_ms_;

  Plan plan(engine_, threads_);
  CRMAP_RETURN_IF_ERROR(Allocate(&plan));
  for (const auto& input : workload_.inputs()) {
    dnnl::memory memory = slots_[tensor_slot_.at(input.name)].memory;
    HostTensor values = GenerateGraphInput(workload_, input.name, shapes_.at(input.name), options_.data_seed);
    std::memcpy(memory.get_data_handle(), values.values.data(), values.values.size() * sizeof(float));
    plan.inputs_[input.name] = memory;
  }
  for (const auto& [name, slot] : outputs) {
    plan.outputs_[name] = {slots_[slot].memory, shapes_.at(name)};
    plan.output_names_.push_back(name);
  }
  plan.info_.compile_ms = compile_ms_;
  plan.info_.reorders = reorders_;
  return plan;
}

Result<Plan> CompilePlan(const Workload& workload, const SearchSpace& space, const Dims& dims, const Config& config,
                         const CompileOptions& options) {
  PlanBuilder builder(workload, space, dims, config, options);
  return builder.Build();
}

}  // namespace crmap
