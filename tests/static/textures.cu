// tests/cudart/tex_basic.cu's texture and surface checks (a 2D float array: point and linear
// sampling, tex1Dfetch on linear memory, a surface box blur) as a static-runtime program:
// built with nvcc's defaults its arrays, copies and objects go through the driver's
// cuArray3DCreate, cuMemcpy2D/3D with array sides, cuTexObjectCreate and cuSurfObjectCreate.
#define main tex_basic_main
#include "../cudart/tex_basic.cu"
#undef main

int main() {
    int status = tex_basic_main();
    if (status == 0) printf("textures: ok\n");
    return status;
}
