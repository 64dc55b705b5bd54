// Tensor layout helpers: from crmap's layout knob values and shapes to oneDNN memory descriptors.
//
// "plain" is PyTorch's contiguous row-major layout (nchw for images); "nhwc" channels-last; "blocked" the
// ISA's native channel blocking (nChw8c on AVX2, nChw16c on AVX-512); "any" lets each primitive choose.
// Views (split heads, transpose) are plain descriptors with explicit strides. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "common/workload.h"

namespace crmap {

enum class ImageLayout { kPlain, kNhwc, kBlocked, kAny };

// "plain" | "nhwc" | "blocked" | "any"; unknown names map to kPlain.
ImageLayout ParseImageLayout(const std::string& name);

dnnl::memory::dims ToDnnlDims(const Shape& shape);
dnnl::memory::format_tag PlainTag(size_t rank);
dnnl::memory::desc PlainDesc(const Shape& shape, dnnl::memory::data_type type);
// The tag of an image layout for a 4-D NCHW tensor; `blocked_channels` is 8 or 16.
dnnl::memory::format_tag ImageTag(ImageLayout layout, int blocked_channels);

// True if the descriptor is row-major and dense (what PyTorch calls contiguous).
bool IsPlainContiguous(const dnnl::memory::desc& desc);
// True if the descriptor covers its elements without gaps (plain, permuted or blocked; not a strided view).
bool IsDense(const dnnl::memory::desc& desc);
// Strides of a non-blocked descriptor, or empty if it has inner blocks or is not a blocked-kind desc.
std::vector<int64_t> StridesOf(const dnnl::memory::desc& desc);
// "f32 nchw 1x64x56x56", "bf16 nChw8c ...", "f32 strided(...)" for messages and kernel reports.
std::string DescribeDesc(const dnnl::memory::desc& desc);

}  // namespace crmap
