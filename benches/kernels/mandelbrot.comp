// GLSL twin of mandelbrot.pisa: out[py * width + px] = escape iteration count
// of z = z^2 + c, c = (x0 + px*dx, y0 + py*dy), at most max_iter.
// Every rounding step is an explicit fma1() in the same order as the .pisa
// kernel's fmad.f, and the values are `precise`, so no driver may contract or
// reorder anything: both sides compute bit-identical orbits. fma1() rounds
// once as PISA's fmad.f does, computed the way the translator emits it on any
// driver (Vulkan's fma() may round twice: lavapipe's does).
// Arguments (each .param at the next multiple of 8): out (u32*) at 0, width 8,
// height 16, max_iter 24 (u32), x0 32, y0 40, dx 48, dy 56 (f32).
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
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args {
    U32 dst;
    uint width, _p0, height, _p1, max_iter, _p2;
    float x0; uint _p3; float y0; uint _p4; float dx; uint _p5; float dy;
};

// a*b + c with one rounding: the product is exact in double; TwoSum gives
// the error of the double sum; rounding that sum to odd and then to float
// rounds once (53 >= 24 + 2)
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
    uint px = (gl_WorkGroupID.x + launch.group_offset_x) * launch.enqueued_x + gl_LocalInvocationID.x;
    uint py = (gl_WorkGroupID.y + launch.group_offset_y) * launch.enqueued_y + gl_LocalInvocationID.y;
    Args args = Args(packUint2x32(launch.params));
    if (px >= args.width) return;
    if (py >= args.height) return;
    precise float cx = fma1(float(px), args.dx, args.x0);
    precise float cy = fma1(float(py), args.dy, args.y0);
    precise float zx = 0.0;
    precise float zy = 0.0;
    uint i;
    for (i = 0; i < args.max_iter; i++) {
        precise float mag = fma1(zx, zx, zy * zy);
        if (mag > 4.0) break;
        precise float t = fma1(zx, zx, cx);
        t = fma1(-zy, zy, t);
        zy = fma1(zx + zx, zy, cy);
        zx = t;
    }
    args.dst.v[py * args.width + px] = i;
}
