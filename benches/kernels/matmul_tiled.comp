// GLSL twin of matmul_tiled.pisa: C = A * B (n x n, row-major f32, n a multiple
// of 16) through 16x16 tiles of A and B in shared memory, two barriers per
// tile; the same summation order as matmul, so the results are identical.
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

shared float ta[256];
shared float tb[256];

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
    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    uint col = (gl_WorkGroupID.x + launch.group_offset_x) * 16 + lx;
    uint row = (gl_WorkGroupID.y + launch.group_offset_y) * 16 + ly;
    Args args = Args(packUint2x32(launch.params));
    uint n = args.n;
    precise float acc = 0.0;
    for (uint t = 0; t < n; t += 16) {
        ta[ly * 16 + lx] = args.a.v[row * n + t + lx];
        tb[ly * 16 + lx] = args.b.v[(t + ly) * n + col];
        barrier();
        for (uint k = 0; k < 16; k++) acc = fma1(ta[ly * 16 + k], tb[k * 16 + lx], acc);
        barrier();
    }
    args.c.v[row * n + col] = acc;
}
