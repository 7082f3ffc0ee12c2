#version 450
// Area-weighted vertex normals (wfComputeNormals) as a gather: each particle sums the unnormalised
// normals of its triangles in ascending triangle order, the order in which the CPU scatters them,
// so the sums round identically.
#include "common.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	precise float sx = 0.0, sy = 0.0, sz = 0.0;
	int end = triStart[i + 1];
	for (int e = triStart[i]; e < end; ++e) {
		uint t = triList[e];
		vec4 p0 = pos[indices[3u * t]], p1 = pos[indices[3u * t + 1u]], p2 = pos[indices[3u * t + 2u]];
		precise float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
		precise float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
		sx += ay * bz - az * by;
		sy += az * bx - ax * bz;
		sz += ax * by - ay * bx;
	}
	precise float len = sqrt(sx * sx + sy * sy + sz * sz);
	precise vec4 n = vec4(0.0, 1.0, 0.0, 0.0);
	if (len > WF_MIN_NORMAL_LENGTH)
		n = vec4(sx / len, sy / len, sz / len, 0.0);
	normals[i] = n;
}
