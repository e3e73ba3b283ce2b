// GLSL twin of shaders/reduce.pisa: out[g] = the sum of in[g*L .. g*L+L) for each
// work-group g (tree reduction in shared memory, the enqueued local size L a
// power of two <= 256; a partial last work-group is smaller). Elements past n count as 0.
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

shared uint partial[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint grp = gl_WorkGroupID.x + launch.group_offset_x;
    uint lsz = launch.enqueued_x;
    uint size = gl_WorkGroupSize.x;
    uint gid = grp * lsz + lid;
    Args args = Args(packUint2x32(launch.params));
    uint v = 0;
    if (gid < args.n) v = args.src.v[gid];
    partial[lid] = v;
    barrier();
    uint half_ = lsz >> 1;
    do {
        // partial[lid] += partial[lid + half] where lid + half is in this work-group
        uint s = lid + half_;
        if (s < size && lid < half_) partial[lid] += partial[s];
        barrier();
        half_ >>= 1;
    } while (half_ != 0);
    if (lid != 0) return;
    args.dst.v[grp] = partial[0];
}
