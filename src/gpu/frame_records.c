// The GPU frame's records, written once for every GPU path (the Vulkan backend and the web's WebGPU
// frame): a cloth's parameters for the frame, the substeps' clock-dependent values and the
// colliders' steps (kernel_abi.h's layouts), each value computed with the CPU solvers' expressions so
// that the kernels' bits follow the CPU's.
#include "core/internal.h"

#include <math.h>
#include <string.h>

static wfGpuVec4 V4(wfVec3 v, float w) { return (wfGpuVec4){v.x, v.y, v.z, w}; }

void wfGpuWriteClothParams(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, const double reference[3], wfGpuClothParams* out)
{
	const float h = p->h;
	const wfMaterial* m = &c->material;
	const wfVec3 d = p->wind.direction;
	wfGpuClothParams* cp = out;
	memset(cp, 0, offsetof(wfGpuClothParams, shapes)); // the shapes past shapeCount are never read
	cp->gravity = V4(p->gravity, 0.0f);
	cp->windDir = V4(d, sqrtf(d.x * d.x + d.y * d.y + d.z * d.z));
	// The cloth's local frame (wfClothBeginFrame): its shift, colliders and grab target.
	cp->grabTarget = V4(c->local.grabTarget, 0.0f);
	cp->shift = V4(c->local.shift, 0.0f);
	cp->sphereCenter = V4(c->local.sphereCenter, 0.0f);
	cp->maxSpeed = world->def.maxSpeed;
	const wfVec3 band = wfContactBand(c, p);
	cp->contactBand = (wfGpuVec4){band.x, band.y, p->sphere.radius, 0.0f}; // z: the tunnelling test's radius
	cp->floor = (wfGpuVec4){0.0f, 1.0f, 0.0f, 0.0f};
	cp->aero = V4(p->aero.airVelocity, 0.5f * p->aero.density);
	cp->aeroCoeff = (wfGpuVec4){p->aero.drag, p->aero.lift, 3.0f, 0.0f}; // z: WGSL's divisor 3, not a constant there (aero)
	cp->alphaTilde = (wfGpuVec4){wfAlphaTilde(m->stretchCompliance, h), wfAlphaTilde(m->shearCompliance, h),
		wfAlphaTilde(m->bendCompliance, h), 0.0f};
	cp->h = h;
	cp->velFactor = world->def.step.solver == WF_SOLVER_JACOBI ? m->retention / h : 1.0f / h;
	cp->invH = 1.0f / h;
	cp->velScale = world->def.step.solver == WF_SOLVER_JACOBI ? m->retention : 1.0f;
	cp->damping = m->damping;
	cp->mass = m->mass;
	cp->stiffness = m->stiffness;
	cp->springDamping = m->springDamping;
	cp->relaxation = m->relaxation;
	cp->windStrength = p->wind.strength;
	cp->windFrequency = p->wind.frequency;
	cp->windPhasePerColumn = p->wind.phasePerColumn;
	cp->friction = p->contact.friction;
	cp->flags = (p->sphere.enabled ? WF_GPU_FLAG_SPHERE : 0u) | (p->floor.enabled ? WF_GPU_FLAG_FLOOR : 0u) |
		(p->contact.response == WF_CONTACT_STOP ? WF_GPU_FLAG_STOP : 0u) | (p->wind.mode == WF_WIND_WAVE ? WF_GPU_FLAG_WAVE : 0u) |
		(c->model.jacobiDegree ? WF_GPU_FLAG_JACOBI_DEGREE : 0u) | (p->aeroOn ? WF_GPU_FLAG_AERO : 0u) |
		(world->def.velocity == WF_VELOCITY_MOVES ? WF_GPU_FLAG_MOVES : 0u);
	cp->grabIndex = c->grabIndex;
	cp->cols = (uint32_t)c->model.cols;
	cp->particleCount = (uint32_t)c->model.particleCount;
	if (c->model.colorCount <= WF_GPU_FUSED_MAX_COLORS) {
		cp->colorCount = (uint32_t)c->model.colorCount;
		for (int k = 0; k <= c->model.colorCount; ++k)
			cp->colorStart[k] = (uint32_t)c->model.colorStart[k];
	}
	cp->tetherBase = (uint32_t)c->model.constraintCount;
	// Cloth against cloth: the offset from the first cloth's frame to this one's (wfCpuClothContacts).
	if (reference != NULL) {
		const double frame[3] = {c->origin[0] + c->local.shift.x, c->origin[1] + c->local.shift.y, c->origin[2] + c->local.shift.z};
		cp->contactX = (float)(frame[0] - reference[0]);
		cp->contactY = (float)(frame[1] - reference[1]);
		cp->contactZ = (float)(frame[2] - reference[2]);
	}
	cp->collisionGroup = (uint32_t)c->def.collisionGroup;
	cp->collisionMask = (uint32_t)c->def.collisionMask;
	// The colliders as this cloth sees them: frame-start centres in its local frame, sizes.
	cp->shapeCount = (uint32_t)world->colliderFrameCount;
	cp->worldShapes = (uint32_t)world->worldShapes;
	wfGpuShapes(world, c, p, cp->shapes);
}

size_t wfGpuClothParamsBytes(const wfWorld* world)
{
	return offsetof(wfGpuClothParams, shapes) + (size_t)world->colliderFrameCount * sizeof(wfGpuShape);
}

void wfGpuWriteSubsteps(const wfWorld* world, const wfFrameParams* p, float invMass, wfGpuSubstep* sub)
{
	for (int s = 0; s < p->substeps && s < WF_MAX_SUBSTEPS; ++s) {
		wfGpuSubstep rec;
		rec.sphereMotion = V4(wfSphereMotionAt(p, s), 0.0f);
		rec.sphereVel = V4(wfSphereVelocityAt(p, s), 0.0f);
		rec.accel = V4(wfExternalAccel(p, s, 0, invMass), (float)(p->time + (double)s * p->h));
		memcpy(&sub[s], &rec, sizeof rec);
	}
	wfGpuShapeSteps(world, p, sub);
}

void wfGpuShapes(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, wfGpuShape* shapes)
{
	for (int k = 0; k < world->colliderFrameCount; ++k) {
		const wfColliderFrame* f = &world->colliderFrame[k];
		float base[3];
		wfShapeBase(world, c, k, base);
		shapes[k].base = (wfGpuVec4){base[0], base[1], base[2], (float)f->type};
		const float t = p->contact.thickness;
		shapes[k].size = (wfGpuVec4){f->radius, f->radius1, f->halfLength, t};
		if (k < world->worldShapes) {
			// The world's sphere and floor: y their reach, the kernels' expressions once a frame (a
			// sphere's radius with the thickness; the still plane's level c.n + t, n = (0, 1, 0)).
			const float cx = base[0] + 0.0f, cy = base[1] + 0.0f, cz = base[2] + 0.0f;
			shapes[k].size.y = f->type == WF_COLLIDER_SPHERE ? f->radius + t : wfPlaneHeight(0.0f, 1.0f, 0.0f, cx, cy, cz) + t;
		}
		shapes[k].halfExtents = (wfGpuVec4){f->halfExtents.x, f->halfExtents.y, f->halfExtents.z, 0.0f};
	}
}

void wfGpuShapeSteps(const wfWorld* world, const wfFrameParams* p, wfGpuSubstep* sub)
{
	// The colliders' only: the world's sphere moves by the substep record, its floor is still.
	const int first = world->worldShapes, shapes = world->colliderFrameCount - first;
	for (int s = 0; s < p->substeps && shapes > 0; ++s) {
		for (int k = 0; k < shapes; ++k) {
			float move[3], a[9];
			wfShapeStep(world, first + k, p, s, move, a);
			const wfColliderFrame* f = &world->colliderFrame[first + k];
			const wfGpuSubstep rec[2] = {
				{{move[0], move[1], move[2], 0.0f}, {a[0], a[1], a[2], 0.0f}, {a[3], a[4], a[5], 0.0f}},
				{{a[6], a[7], a[8], 0.0f}, {f->velocity.x, f->velocity.y, f->velocity.z, 0.0f}, {f->omega.x, f->omega.y, f->omega.z, 0.0f}},
			};
			memcpy(&sub[WF_MAX_SUBSTEPS + 2 * (s * shapes + k)], rec, sizeof rec);
		}
	}
}
