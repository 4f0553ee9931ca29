// Halide's sixteen apps (apps/<name> at v14.0.0), the ones its per-app weights
// files are named after, one file each (app_<name>.cpp), in Beamscope's own code.

#include "core/pipelines/apps_common.h"

namespace beamscope::pipelines {

std::vector<PipelineInfo> appPipelines()
{
    using namespace apps;
    return {
        {"bgu",
         "bilateral guided upsampling: per-cell affine colour transforms fitted in a bilateral grid from a low-res "
         "input/output pair, trilinearly applied to the full-res image",
         Origin::App, bgu},
        {"bilateral_grid",
         "edge-preserving bilateral filter: splat into a coarse (x, y, intensity) grid, blur the grid, read it back "
         "trilinearly",
         Origin::App, bilateralGrid},
        {"camera_pipe",
         "raw Bayer sensor image to 8-bit RGB: hot-pixel suppression, edge-aware demosaic, colour matrix, tone-curve "
         "LUT, unsharp sharpening",
         Origin::App, cameraPipe},
        {"conv_layer",
         "convolution-network layer: 3x3 convolution over 128 channels plus bias, then ReLU (batch of 5, 100 x 80)",
         Origin::App, convLayer},
        {"cuda_mat_mul", "dense float32 1024 x 1024 matrix product", Origin::App, cudaMatMul},
        {"depthwise_separable_conv",
         "MobileNet-style separable convolution: zero padding, per-channel 3x3 depthwise, 1x1 pointwise with bias, "
         "ReLU",
         Origin::App, depthwiseSeparableConv},
        {"harris",
         "Harris corner response of an RGB image: Sobel gradients of the luma, products summed over 3x3 windows",
         Origin::App, harris},
        {"hist",
         "histogram equalisation of an RGB image's luma (per-row histograms, 256 bins, their cumulative sum), chroma "
         "kept",
         Origin::App, hist},
        {"iir_blur", "first-order recursive (IIR) blur down and back up the columns, transposed, twice", Origin::App,
         iirBlur},
        {"interpolate",
         "fills transparent areas of an RGBA image through a 10-level alpha-weighted pyramid, down and back up",
         Origin::App, interpolate},
        {"lens_blur",
         "depth from a stereo pair (block-matching cost volume, push-pull pyramid, argmin), then a depth-of-field blur "
         "by aperture samples",
         Origin::App, lensBlur},
        {"local_laplacian",
         "local Laplacian filter: edge-aware detail and tone adjustment of a 16-bit RGB image over an 8-level pyramid",
         Origin::App, localLaplacian},
        {"max_filter",
         "maximum over a disc of radius 26: vertical maxima over power-of-two heights, then a horizontal pass",
         Origin::App, maxFilter},
        {"nl_means", "non-local means denoising: a mean over a 7 x 7 search window weighted by 7 x 7 patch similarity",
         Origin::App, nlMeans},
        {"stencil_chain", "a chain of 32 weighted 5 x 5 stencils over a uint16 image with clamped edges", Origin::App,
         stencilChain},
        {"unsharp",
         "unsharp mask of an RGB image: luma sharpened against a 7-tap Gaussian blur, colour scaled by the ratio",
         Origin::App, unsharp},
    };
}

} // namespace beamscope::pipelines
