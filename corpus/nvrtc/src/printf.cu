// Device-side printf (vprintf with a local argument buffer).
extern "C" __global__ void hello(int tag, float f, double d)
{
    printf("hello from block %d thread %d tag %d\n", blockIdx.x, threadIdx.x, tag);
    if (threadIdx.x == 0) printf("f=%f d=%.3f s=%s c=%c ll=%lld\n", f, d, "str", 'x', -1ll);
}
