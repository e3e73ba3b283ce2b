// GLSL twin of subgroup_sum.pisa, written for any device: each group of 32 consecutive
// invocations sums its values through shared memory (the portable way to get a 32-wide sum
// when the device's sub-groups are not 32 wide: lavapipe's are 8). out[i / 32] = the sum
// (mod 2^32) of in[i .. i+32), written by the first invocation of each 32.
// Arguments: in (u32*) at 0, out (u32*) at 8.
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
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Args { U32 src; U32 dst; };

shared uint values[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint grp = gl_WorkGroupID.x + launch.group_offset_x;
    uint gid = grp * launch.enqueued_x + lid;
    Args args = Args(packUint2x32(launch.params));
    values[lid] = args.src.v[gid];
    barrier();
    if ((lid & 31u) != 0u) return;
    uint sum = 0;
    for (uint k = 0; k < 32u; k++) sum += values[lid + k];
    args.dst.v[gid >> 5] = sum;
}
