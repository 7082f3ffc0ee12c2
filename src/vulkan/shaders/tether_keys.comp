#version 450
// The tethers (tether.glsl) and then the self-collision grid's keys and ranks (contact_grid.comp's
// KEYS stage) from the positions they leave, in one dispatch: vk_record.c KeysWithTethers, where
// nothing moves the particles between the two. pc.substep is the hash mask. A kernel of its own, as
// it reads the contact arrays: a world without contacts has none bound, and predict.comp stays
// within WebGPU's storage buffers.
#include "common.glsl"
#include "contact.glsl"
#include "tether.glsl"

void main()
{
	const uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	WfFileKey(i, WfTether(i, pos[i]).xyz, pc.substep);
}
