#include "backend/tensor_layout.h"

#include <algorithm>

#include <oneapi/dnnl/dnnl_debug.h>

namespace crmap {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

ImageLayout ParseImageLayout(const std::string& name) {
  if (name == "nhwc") return ImageLayout::kNhwc;
  if (name == "blocked") return ImageLayout::kBlocked;
  if (name == "any") return ImageLayout::kAny;
  return ImageLayout::kPlain;
}

dnnl::memory::dims ToDnnlDims(const Shape& shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

tag PlainTag(size_t rank) {
  switch (rank) {
    case 1: return tag::a;
    case 2: return tag::ab;
    case 3: return tag::abc;
    case 4: return tag::abcd;
    case 5: return tag::abcde;
    default: return tag::undef;
  }
}

dnnl::memory::desc PlainDesc(const Shape& shape, dt type) {
  return dnnl::memory::desc(ToDnnlDims(shape), type, PlainTag(shape.size()));
}

tag ImageTag(ImageLayout layout, int blocked_channels) {
  switch (layout) {
    case ImageLayout::kPlain: return tag::nchw;
    case ImageLayout::kNhwc: return tag::nhwc;
    case ImageLayout::kBlocked: return blocked_channels == 16 ? tag::nChw16c : tag::nChw8c;
    case ImageLayout::kAny: return tag::any;
  }
  return tag::nchw;
}

std::vector<int64_t> StridesOf(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& md = desc.data;
  if (md.format_kind != dnnl_blocked || md.format_desc.blocking.inner_nblks != 0) return {};
  return std::vector<int64_t>(md.format_desc.blocking.strides, md.format_desc.blocking.strides + md.ndims);
}

bool IsPlainContiguous(const dnnl::memory::desc& desc) {
  std::vector<int64_t> strides = StridesOf(desc);
  if (strides.empty() || desc.data.offset0 != 0) return false;
  int64_t expected = 1;
  for (int i = desc.data.ndims - 1; i >= 0; --i) {
    if (desc.data.dims[i] != 1 && strides[i] != expected) return false;
    expected *= desc.data.dims[i];
  }
  return true;
}

bool IsDense(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& md = desc.data;
  if (md.format_kind != dnnl_blocked) return false;
  int64_t elements = 1;
  for (int i = 0; i < md.ndims; ++i) elements *= md.padded_dims[i];
  return desc.get_size() == static_cast<size_t>(elements) * dnnl::memory::data_type_size(desc.data_type());
}

std::string DescribeDesc(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& md = desc.data;
  std::string text = dnnl_dt2str(md.data_type);
  text += " ";
  if (md.format_kind == dnnl_format_kind_any) {
    text += "any";
  } else if (md.format_kind != dnnl_blocked) {
    text += "opaque";
  } else {
    // oneDNN's tag notation: outer dims by decreasing stride (upper case if also blocked), then inner blocks.
    const auto& blocking = md.format_desc.blocking;
    std::vector<int> order(md.ndims);
    for (int i = 0; i < md.ndims; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return blocking.strides[a] > blocking.strides[b]; });
    for (int i : order) {
      bool blocked = false;
      for (int j = 0; j < blocking.inner_nblks; ++j) blocked |= blocking.inner_idxs[j] == i;
      text += static_cast<char>((blocked ? 'A' : 'a') + i);
    }
    for (int j = 0; j < blocking.inner_nblks; ++j)
      text += std::to_string(blocking.inner_blks[j]) + static_cast<char>('a' + blocking.inner_idxs[j]);
    if (!IsDense(desc)) text += "(strided)";
  }
  text += " ";
  for (int i = 0; i < md.ndims; ++i) text += (i ? "x" : "") + std::to_string(md.dims[i]);
  return text;
}

}  // namespace crmap
