// Mipmapped and cubemap arrays through the driver API: cuMipmappedArrayCreate (a 8×8 float
// chain of 4 levels), cuMipmappedArrayGetLevel and cuMemcpy3D into each level (level l holds
// 100 l + 10 y + x), a texture object over CU_RESOURCE_TYPE_MIPMAPPED_ARRAY sampled at each
// level (the tex_lod kernel of kernels.cu), cuArray3DCreate with CUDA_ARRAY3D_CUBEMAP filled
// face by face and sampled along each axis (tex_cube), cuArray3DGetDescriptor's flags, the
// errors of a level the array lacks and of a cubemap of non-square faces, and
// cuMipmappedArrayDestroy. Prints every sample. Only calls a real driver answers without
// undefined behaviour, so scripts/gpu/driver.sh runs it under NVIDIA's driver too.
#include <string.h>

#include "check.h"

// Copies a w×h×d box of floats from host memory into `array`.
static void to_array(CUarray array, const float *host, size_t w, size_t h, size_t d) {
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST;
    p.srcHost = host;
    p.srcPitch = w * sizeof(float);
    p.srcHeight = h;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    p.dstArray = array;
    p.WidthInBytes = w * sizeof(float);
    p.Height = h;
    p.Depth = d;
    CHECK(cuMemcpy3D(&p));
}

static CUtexObject texture(CUresourcetype type, void *handle) {
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = type;
    if (type == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
        res.res.mipmap.hMipmappedArray = (CUmipmappedArray)handle;
    } else {
        res.res.array.hArray = (CUarray)handle;
    }
    CUDA_TEXTURE_DESC tex;
    memset(&tex, 0, sizeof tex);
    tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
    tex.filterMode = CU_TR_FILTER_MODE_POINT;
    tex.mipmapFilterMode = CU_TR_FILTER_MODE_POINT;
    tex.flags = CU_TRSF_NORMALIZED_COORDINATES;
    tex.maxMipmapLevelClamp = 3.0f;
    CUtexObject t;
    CHECK(cuTexObjectCreate(&t, &res, &tex, NULL));
    return t;
}

int main(int argc, char **argv) {
    CUcontext ctx;
    CUmodule module = open_module(argv[1], &ctx);
    CUfunction lod_kernel, cube_kernel;
    CHECK(cuModuleGetFunction(&lod_kernel, module, "tex_lod"));
    CHECK(cuModuleGetFunction(&cube_kernel, module, "tex_cube"));

    CUDA_ARRAY3D_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    d.Width = 8;
    d.Height = 8;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    CUmipmappedArray mip;
    CHECK(cuMipmappedArrayCreate(&mip, &d, 4));
    float host[6 * 8 * 8];
    for (unsigned l = 0; l < 4; l++) {
        CUarray level;
        CHECK(cuMipmappedArrayGetLevel(&level, mip, l));
        CUDA_ARRAY3D_DESCRIPTOR ld;
        CHECK(cuArray3DGetDescriptor(&ld, level));
        size_t w = 8 >> l;
        EXPECT(ld.Width == w && ld.Height == w);
        for (size_t i = 0; i < w * w; i++) host[i] = 100.0f * l + 10.0f * (i / w) + i % w;
        to_array(level, host, w, w, 1);
    }
    CUarray none;
    EXPECT(cuMipmappedArrayGetLevel(&none, mip, 4) == CUDA_ERROR_INVALID_VALUE);

    CUtexObject t = texture(CU_RESOURCE_TYPE_MIPMAPPED_ARRAY, mip);
    CUDA_RESOURCE_DESC back;
    CHECK(cuTexObjectGetResourceDesc(&back, t));
    EXPECT(back.resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY && back.res.mipmap.hMipmappedArray == mip);
    float lods[] = {0.0f, 1.0f, 2.0f, 3.0f, 1.4f, 1.6f, 9.0f, -2.0f};
    // (0.3, 0.45) is texel (2, 3) of level 0, (1, 1) of level 1, (0, 0) of levels 2 and 3.
    float want[] = {32, 111, 200, 300, 111, 200, 300, 32};
    int n = 8;
    CUdeviceptr d_lod, d_out;
    CHECK(cuMemAlloc(&d_lod, sizeof lods));
    CHECK(cuMemAlloc(&d_out, 8 * sizeof(float)));
    CHECK(cuMemcpyHtoD(d_lod, lods, sizeof lods));
    float x = 0.3f, y = 0.45f;
    void *lod_params[] = {&t, &x, &y, &d_lod, &d_out, &n};
    CHECK(cuLaunchKernel(lod_kernel, 1, 1, 1, 32, 1, 1, 0, NULL, lod_params, NULL));
    float out[8];
    CHECK(cuMemcpyDtoH(out, d_out, sizeof out));
    for (int i = 0; i < n; i++) {
        printf("lod %g: %a %.9g\n", lods[i], out[i], out[i]);
        EXPECT(out[i] == want[i]);
    }
    CHECK(cuTexObjectDestroy(t));
    CHECK(cuMipmappedArrayDestroy(mip));

    // A cubemap: face f holds 1000 f + 10 y + x.
    d.Width = d.Height = 4;
    d.Depth = 6;
    d.Flags = CUDA_ARRAY3D_CUBEMAP;
    CUarray cube;
    CHECK(cuArray3DCreate(&cube, &d));
    CUDA_ARRAY3D_DESCRIPTOR cd;
    CHECK(cuArray3DGetDescriptor(&cd, cube));
    EXPECT(cd.Flags == CUDA_ARRAY3D_CUBEMAP && cd.Depth == 6);
    for (int i = 0; i < 6 * 16; i++) host[i] = 1000.0f * (i / 16) + 10.0f * (i / 4 % 4) + i % 4;
    to_array(cube, host, 4, 4, 6);
    t = texture(CU_RESOURCE_TYPE_ARRAY, cube);
    float dirs[6][4] = {{1, 0.1f, -0.6f, 0}, {-1, 0.1f, -0.6f, 0}, {0.3f, 1, 0.6f, 0},
                        {0.3f, -1, 0.6f, 0}, {0.3f, 0.6f, 1, 0}, {0.3f, 0.6f, -1, 0}};
    // By the guide's table: (s, t) of each direction, in texels of 4.
    float cube_want[6] = {0 + 10 + 3, 1000 + 10 + 0, 2000 + 30 + 2, 3000 + 0 + 2,
                          4000 + 0 + 2, 5000 + 0 + 1};
    CUdeviceptr d_dirs;
    CHECK(cuMemAlloc(&d_dirs, sizeof dirs));
    CHECK(cuMemcpyHtoD(d_dirs, dirs, sizeof dirs));
    int six = 6;
    void *cube_params[] = {&t, &d_dirs, &d_out, &six};
    CHECK(cuLaunchKernel(cube_kernel, 1, 1, 1, 32, 1, 1, 0, NULL, cube_params, NULL));
    CHECK(cuMemcpyDtoH(out, d_out, 6 * sizeof(float)));
    for (int i = 0; i < 6; i++) {
        printf("face %d: %a %.9g\n", i, out[i], out[i]);
        EXPECT(out[i] == cube_want[i]);
    }
    CHECK(cuTexObjectDestroy(t));
    CHECK(cuArrayDestroy(cube));
    d.Height = 3;
    EXPECT(cuArray3DCreate(&cube, &d) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(d_lod));
    CHECK(cuMemFree(d_out));
    CHECK(cuMemFree(d_dirs));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    printf("mipmap_cubemap: ok\n");
    return 0;
}
