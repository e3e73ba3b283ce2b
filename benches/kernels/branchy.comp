// GLSL twin of branchy.pisa: data-dependent early returns.
// Arguments: in (u32*) at 0, out (u32*) at 8, n (u32) at 16.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
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
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args { U32 src; U32 dst; uint n; };

void main() {
    uint gid = (gl_WorkGroupID.x + launch.group_offset_x) * launch.enqueued_x + gl_LocalInvocationID.x;
    Args args = Args(packUint2x32(launch.params));
    if (gid >= args.n) return;
    uint v = args.src.v[gid];
    if (v == 0) return;
    uint t = v & 3;
    if (t == 0) {
        args.dst.v[gid] = v >> 2;
        return;
    }
    if (t == 1) {
        args.dst.v[gid] = v * 3 + 1;
        return;
    }
    uint h = v >> 16;
    if (h < 0x4000) {
        args.dst.v[gid] = v ^ 0xA5A5A5A5u;
        return;
    }
    args.dst.v[gid] = v + h;
}
