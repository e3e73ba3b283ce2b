// GLSL twin of matmul.pisa: C = A * B (n x n, row-major f32), one invocation
// per element, acc = fma1(A[row][k], B[k][col], acc) for k = 0, 1, ..., n-1.
// Arguments: a (f32*) at 0, b (f32*) at 8, c (f32*) at 16, n (u32) at 24.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_ARB_gpu_shader_int64 : require
// the work-group size is given by specialization constants 0, 1, 2 (docs/abi.md)
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
// the launch block every kernel receives as push constants (docs/abi.md)
layout(push_constant) uniform PisaLaunch {
    uvec2 data_base; uvec2 params;
    uint global_offset_x, global_offset_y, global_offset_z, work_dim;
    uint global_size_x, global_size_y, global_size_z;
    uint group_offset_x, group_offset_y, group_offset_z;
    uint enqueued_x, enqueued_y, enqueued_z;
    uint pad; uvec2 status;
} launch;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args { F32 a; F32 b; F32 c; uint n; };

// a*b + c with one rounding, as PISA's fmad.f (Vulkan's fma() may round
// twice: lavapipe's does); computed as the translator emits it (see
// mandelbrot.comp)
float fma1(float a, float b, float c) {
    precise double p = double(a) * double(b);
    precise double dc = double(c);
    precise double s = p + dc;
    precise double bv = s - p;
    precise double av = s - bv;
    precise double e = (p - av) + (dc - bv);
    uint64_t sb = doubleBitsToUint64(s);
    if (e != 0.0lf && (sb & 1ul) == 0ul) {
        uint64_t eb = doubleBitsToUint64(e);
        sb += ((sb ^ eb) >> 63) != 0ul ? 0xFFFFFFFFFFFFFFFFul : 1ul;
    }
    return float(uint64BitsToDouble(sb));
}

void main() {
    uint col = (gl_WorkGroupID.x + launch.group_offset_x) * launch.enqueued_x + gl_LocalInvocationID.x;
    uint row = (gl_WorkGroupID.y + launch.group_offset_y) * launch.enqueued_y + gl_LocalInvocationID.y;
    Args args = Args(packUint2x32(launch.params));
    uint n = args.n;
    if (col >= n) return;
    if (row >= n) return;
    precise float acc = 0.0;
    for (uint k = 0; k < n; k++) acc = fma1(args.a.v[row * n + k], args.b.v[k * n + col], acc);
    args.c.v[row * n + col] = acc;
}
