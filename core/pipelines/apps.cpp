// The 16 apps named by Halide's per-app weights, one file each (app_<name>.cpp),
// written for Beamscope in Halide 14 after Halide's own apps at v14.0.0.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines {

std::vector<PipelineInfo> appPipelines()
{
    using namespace apps;
    return {
        {"bgu",
         "bilateral guided upsampling (simplified: per-cell colour offsets learned on a low-res pair, sliced at full "
         "res)",
         Origin::App, bgu},
        {"bilateral_grid", "edge-aware blur through a 3-D bilateral grid (scatter, blur, trilinear slice)", Origin::App,
         bilateralGrid},
        {"camera_pipe", "raw Bayer to RGB: hot pixels, demosaic, colour matrix, tone curve, sharpen", Origin::App,
         cameraPipe},
        {"conv_layer", "3x3 convolution layer with bias and ReLU, 128 -> 128 channels", Origin::App, convLayer},
        {"cuda_mat_mul", "float32 matrix multiply", Origin::App, cudaMatMul},
        {"depthwise_separable_conv", "depthwise 3x3 then pointwise convolution with bias and ReLU", Origin::App,
         depthwiseSeparableConv},
        {"harris", "Harris corner response from Sobel gradients", Origin::App, harris},
        {"hist", "histogram equalisation of the luma of an RGB image", Origin::App, hist},
        {"iir_blur", "first-order recursive blur, causal and anti-causal, columns then rows", Origin::App, iirBlur},
        {"interpolate", "multi-scale interpolation of a sparse alpha-weighted image", Origin::App, interpolate},
        {"lens_blur", "stereo disparity by block matching, then depth-dependent blur", Origin::App, lensBlur},
        {"local_laplacian", "local Laplacian filter: detail remapping across a Laplacian pyramid", Origin::App,
         localLaplacian},
        {"max_filter", "large-radius 2-D max filter from log-step vertical maxima", Origin::App, maxFilter},
        {"nl_means", "non-local means denoising over a search window of patch distances", Origin::App, nlMeans},
        {"stencil_chain", "a chain of 5x5 box stencils on uint16", Origin::App, stencilChain},
        {"unsharp", "unsharp mask on luma with a separable Gaussian", Origin::App, unsharp},
    };
}

} // namespace beamscope::pipelines
