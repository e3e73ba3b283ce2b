// GLSL twin of shaders/prefix_sum.pisa: inclusive prefix sum within each
// work-group (Hillis-Steele scan in shared memory): out[i] = in[g*L] + ... + in[i].
// Arguments: in (i32*) at 0, out (i32*) at 8, n (u32) at 16.
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
layout(buffer_reference, std430, buffer_reference_align = 4) buffer I32 { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args { I32 src; I32 dst; uint n; };

shared int buf[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint lsz = launch.enqueued_x;
    uint gid = (gl_WorkGroupID.x + launch.group_offset_x) * lsz + lid;
    Args args = Args(packUint2x32(launch.params));
    bool inside = gid < args.n;
    int v = 0;
    if (inside) v = args.src.v[gid];
    buf[lid] = v;
    uint d = 1;
    do {
        barrier();
        int w = 0;
        if (lid >= d) w = buf[lid - d];
        barrier();
        v += w;
        buf[lid] = v;
        d <<= 1;
    } while (d < lsz);
    if (!inside) return;
    args.dst.v[gid] = v;
}
