// weft-peer-bullet: the same hanging cloth stepped by weft (XPBD on the CPU backend) and by Bullet's
// soft body, both timed in one run on one machine, so their ratio is measured side by side.
//
// The cloth: a horizontal cols x rows patch of width x height metres in the xz plane, one mass per
// particle, gravity -9.8 m/s^2 along y, the two corners of row 0 pinned, nothing to collide with.
// A frame is 1/60 s split into `substeps` substeps; each substep runs `iterations` constraint sweeps.
//
// The constraint sets are comparable, not identical:
//   weft   structural (row, column), shear (both diagonals of each quad), bending (skip-one along rows
//          and columns), compliances of the xpbd preset;
//   Bullet btSoftBodyHelpers::CreatePatch links (row, column, one alternating diagonal per quad) plus
//          generateBendingConstraints(2): a link between every pair of nodes two links apart, which
//          is more constraints than weft's bending. Both counts are printed, with a time per projection.
//
// Timing: both are warmed up, then their timed frames are run in alternating blocks, so that noise
// from other work on a shared machine falls on both libraries alike. Each frame is timed with
// clock_gettime(CLOCK_MONOTONIC) (and the process CPU time beside it); the table gives the median,
// p90 and minimum per library. The ratio that counts is Bullet's median over weft's.
#include <weft/weft.h>

#include "weft_env.h"

#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

namespace
{

// The scene shared by both libraries. Mass and compliances are those of weft's xpbd preset.
constexpr float kWidth = 2.4f;         // m, along the columns (x)
constexpr float kHeight = 2.4f;        // m, along the rows (z)
constexpr float kParticleMass = 0.01f; // kg
constexpr float kGravity = -9.8f;      // m/s^2, along y
constexpr float kFrame = 1.0f / 60.0f; // s

struct Options {
	int cols = 60, rows = 60;
	int substeps = 10;
	int iterations = 1;
	int threads = 1;  // weft CPU worker threads; Bullet's soft body solver is single-threaded
	int warmup = 30;  // frames per library before timing
	int frames = 300; // timed frames per library
	int block = 10;   // timed frames per library before switching to the other
};

void PrintUsage(FILE* out)
{
	std::fprintf(out,
		"usage: weft-peer-bullet [--grid CxR] [--substeps N] [--iterations N] [--threads N]\n"
		"                        [--warmup N] [--frames N] [--block N]\n"
		"  --grid CxR       particles per row x per column (default 60x60)\n"
		"  --substeps N     substeps per 1/60 s frame, both libraries (default 10)\n"
		"  --iterations N   weft step.iterations and Bullet m_cfg.piterations (default 1)\n"
		"  --threads N      weft CPU threads, 0 = all cores (default 1; Bullet is single-threaded)\n"
		"  --warmup N       untimed frames per library first (default 30)\n"
		"  --frames N       timed frames per library (default 300)\n"
		"  --block N        timed frames per library before switching to the other (default 10)\n"
		"Bullet's generateBendingConstraints builds an n^2 table of the n particles, so grids much\n"
		"beyond 150x150 are refused.\n");
}

bool ParseInt(const char* text, int lo, int hi, int* out)
{
	char* end = nullptr;
	long v = std::strtol(text, &end, 10);
	if (end == text || *end != '\0' || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

bool ParseOptions(int argc, char** argv, Options* o)
{
	for (int i = 1; i < argc; ++i) {
		const char* a = argv[i];
		if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
			PrintUsage(stdout);
			std::exit(0);
		}
		if (i + 1 >= argc) {
			std::fprintf(stderr, "weft-peer-bullet: %s needs a value\n", a);
			return false;
		}
		const char* v = argv[++i];
		bool ok = true;
		if (std::strcmp(a, "--grid") == 0) {
			int c = 0, r = 0;
			char tail = 0;
			ok = std::sscanf(v, "%dx%d%c", &c, &r, &tail) == 2 && c >= 2 && r >= 2;
			// Bullet's bending setup allocates n^2 unsigned ints; keep that under about 2 GB.
			ok = ok && (double)c * r <= 22500.0;
			o->cols = c;
			o->rows = r;
		} else if (std::strcmp(a, "--substeps") == 0) {
			ok = ParseInt(v, 1, 4096, &o->substeps);
		} else if (std::strcmp(a, "--iterations") == 0) {
			ok = ParseInt(v, 1, 1024, &o->iterations);
		} else if (std::strcmp(a, "--threads") == 0) {
			ok = ParseInt(v, 0, 1024, &o->threads);
		} else if (std::strcmp(a, "--warmup") == 0) {
			ok = ParseInt(v, 0, 1000000, &o->warmup);
		} else if (std::strcmp(a, "--frames") == 0) {
			ok = ParseInt(v, 1, 1000000, &o->frames);
		} else if (std::strcmp(a, "--block") == 0) {
			ok = ParseInt(v, 1, 1000000, &o->block);
		} else {
			std::fprintf(stderr, "weft-peer-bullet: unknown option %s\n", a);
			PrintUsage(stderr);
			return false;
		}
		if (!ok) {
			std::fprintf(stderr, "weft-peer-bullet: bad value for %s: %s\n", a, v);
			return false;
		}
	}
	return true;
}

double Seconds(clockid_t clock)
{
	timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// One frame's cost: wall time (CLOCK_MONOTONIC, the figure that counts) and the CPU time this
// process spent in it (CLOCK_PROCESS_CPUTIME_ID, summed over threads). On a loaded machine a long
// frame is preempted more often than a short one, which inflates its wall time but not its CPU time;
// with one thread the CPU time is the steadier figure.
struct Sample {
	double wallMs, cpuMs;
};

template <typename Fn> bool TimeFrame(std::vector<Sample>* out, Fn step)
{
	double w0 = Seconds(CLOCK_MONOTONIC), c0 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
	bool ok = step();
	double c1 = Seconds(CLOCK_PROCESS_CPUTIME_ID), w1 = Seconds(CLOCK_MONOTONIC);
	out->push_back(Sample{1e3 * (w1 - w0), 1e3 * (c1 - c0)});
	return ok;
}

double Median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Summary {
	double median = 0, p90 = 0, min = 0; // wall ms per frame
	double cpuMedian = 0;                // process CPU ms per frame
};

Summary Summarise(const std::vector<Sample>& samples)
{
	std::vector<double> wall, cpu;
	for (const Sample& s : samples) {
		wall.push_back(s.wallMs);
		cpu.push_back(s.cpuMs);
	}
	Summary s;
	s.median = Median(wall);
	s.cpuMedian = Median(cpu);
	std::sort(wall.begin(), wall.end());
	size_t k = (size_t)std::ceil(0.9 * (double)wall.size());
	s.p90 = wall[k > 0 ? k - 1 : 0];
	s.min = wall[0];
	return s;
}

// ---------------------------------------------------------------- weft
struct WeftCloth {
	wfWorld* world = nullptr;
	wfClothId cloth{};
	wfClothInfo info{};

	~WeftCloth()
	{
		if (world != nullptr)
			wfDestroyWorld(world);
	}

	bool Create(const Options& o)
	{
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.threads = o.threads;
		wd.step.solver = WF_SOLVER_XPBD;
		wd.step.timeStep = kFrame;
		wd.step.substeps = o.substeps;
		wd.step.iterations = o.iterations;
		wd.gravity = wfVec3{0.0f, kGravity, 0.0f};
		char error[256];
		wfEnvApplyToWorldDef(&wd);
		world = wfCreateWorld(&wd, error, (int)sizeof error);
		if (world == nullptr) {
			std::fprintf(stderr, "weft-peer-bullet: wfCreateWorld: %s\n", error);
			return false;
		}

		wfClothDef cd = wfDefaultClothDef();
		cd.cols = o.cols;
		cd.rows = o.rows;
		cd.width = kWidth;
		cd.height = kHeight;
		cd.orientation = WF_ORIENT_HORIZONTAL;
		cd.origin = wfVec3{0.0f, 0.0f, 0.0f};
		cd.structural = cd.shear = cd.bending = true;
		cd.material.mass = kParticleMass;
		cd.material.stretchCompliance = 1e-7f;
		cd.material.shearCompliance = 1e-6f;
		cd.material.bendCompliance = 1e-3f;
		// Bullet's soft body is left at its default damping (kDP = 0); no extra damping here either.
		cd.material.damping = 0.0f;
		cd.pinMode = WF_PIN_TOP_CORNERS;
		cloth = wfCreateCloth(world, &cd);
		if (wfClothId_IsNull(cloth)) {
			std::fprintf(stderr, "weft-peer-bullet: wfCreateCloth: %s\n", wfWorld_GetLastError(world));
			return false;
		}
		wfCloth_GetInfo(cloth, &info);
		return true;
	}

	bool Step()
	{
		wfResult r = wfWorld_Step(world);
		if (r != WF_OK) {
			std::fprintf(stderr, "weft-peer-bullet: wfWorld_Step: %s: %s\n", wfResultName(r), wfWorld_GetLastError(world));
			return false;
		}
		return true;
	}

	std::vector<wfVec3> Positions() const
	{
		std::vector<wfVec3> p((size_t)info.particleCount);
		wfCloth_ReadPositions(cloth, p.data(), info.particleCount);
		return p;
	}
};

// ---------------------------------------------------------------- Bullet
struct BulletCloth {
	std::unique_ptr<btSoftBodyRigidBodyCollisionConfiguration> config;
	std::unique_ptr<btCollisionDispatcher> dispatcher;
	std::unique_ptr<btDbvtBroadphase> broadphase;
	std::unique_ptr<btSequentialImpulseConstraintSolver> solver;
	std::unique_ptr<btSoftRigidDynamicsWorld> world;
	btSoftBody* body = nullptr; // owned by this struct, removed from the world first
	int structuralLinks = 0, bendingLinks = 0;
	long long substepsTaken = 0; // what stepSimulation reports, to check the substep count
	long long framesStepped = 0;

	~BulletCloth()
	{
		if (body != nullptr) {
			world->removeSoftBody(body);
			delete body;
		}
	}

	bool Create(const Options& o)
	{
		config = std::make_unique<btSoftBodyRigidBodyCollisionConfiguration>();
		dispatcher = std::make_unique<btCollisionDispatcher>(config.get());
		broadphase = std::make_unique<btDbvtBroadphase>();
		solver = std::make_unique<btSequentialImpulseConstraintSolver>();
		world = std::make_unique<btSoftRigidDynamicsWorld>(dispatcher.get(), broadphase.get(), solver.get(), config.get());
		world->setGravity(btVector3(0, kGravity, 0));
		btSoftBodyWorldInfo& wi = world->getWorldInfo();
		wi.m_gravity.setValue(0, kGravity, 0);
		wi.m_sparsesdf.Initialize();

		// Same layout as weft: node (col c, row r) is index r * cols + c, row 0 at z = -height / 2,
		// pinned corners are nodes 0 and cols - 1 (CreatePatch flags 1 and 2).
		const btScalar hx = kWidth / 2, hz = kHeight / 2;
		body = btSoftBodyHelpers::CreatePatch(wi, btVector3(-hx, 0, -hz), btVector3(hx, 0, -hz), btVector3(-hx, 0, hz),
			btVector3(hx, 0, hz), o.cols, o.rows, 1 + 2, true);
		if (body == nullptr) {
			std::fprintf(stderr, "weft-peer-bullet: CreatePatch failed\n");
			return false;
		}
		structuralLinks = body->m_links.size();
		bendingLinks = body->generateBendingConstraints(2);
		body->m_cfg.piterations = o.iterations;
		// CreatePatch gives every node mass 1 and the pinned ones 0; give the free ones weft's mass.
		for (int i = 0; i < body->m_nodes.size(); ++i) {
			if (body->m_nodes[i].m_im > 0)
				body->setMass(i, kParticleMass);
		}
		world->addSoftBody(body);
		return true;
	}

	void Step(const Options& o)
	{
		// stepSimulation reports the substeps due; it runs at most maxSubSteps of them.
		int due = world->stepSimulation(kFrame, o.substeps, kFrame / (btScalar)o.substeps);
		substepsTaken += std::min(due, o.substeps);
		framesStepped += 1;
	}

	std::vector<wfVec3> Positions() const
	{
		std::vector<wfVec3> p((size_t)body->m_nodes.size());
		for (int i = 0; i < body->m_nodes.size(); ++i) {
			const btVector3& x = body->m_nodes[i].m_x;
			p[(size_t)i] = wfVec3{(float)x.x(), (float)x.y(), (float)x.z()};
		}
		return p;
	}
};

// Sanity figures of a final frame: how far the centre particle and the lowest particle hang below y = 0.
struct Shape {
	float centreSag, lowest;
};

Shape Measure(const std::vector<wfVec3>& p, const Options& o)
{
	Shape s;
	s.centreSag = -p[(size_t)((o.rows / 2) * o.cols + o.cols / 2)].y;
	s.lowest = 0.0f;
	for (const wfVec3& v : p)
		s.lowest = std::max(s.lowest, -v.y);
	return s;
}

} // namespace

int main(int argc, char** argv)
{
	Options o;
	if (!ParseOptions(argc, argv, &o))
		return 2;

	WeftCloth weft;
	BulletCloth bullet;
	if (!weft.Create(o) || !bullet.Create(o))
		return 1;

	// Warm-up: caches, page faults, and the first swing of the cloth, for both.
	for (int f = 0; f < o.warmup; ++f) {
		if (!weft.Step())
			return 1;
		bullet.Step(o);
	}

	// Timed frames in alternating blocks.
	std::vector<Sample> weftSamples, bulletSamples;
	weftSamples.reserve((size_t)o.frames);
	bulletSamples.reserve((size_t)o.frames);
	while ((int)weftSamples.size() < o.frames) {
		int n = std::min(o.block, o.frames - (int)weftSamples.size());
		for (int f = 0; f < n; ++f) {
			if (!TimeFrame(&weftSamples, [&] { return weft.Step(); }))
				return 1;
		}
		for (int f = 0; f < n; ++f)
			TimeFrame(&bulletSamples, [&] {
				bullet.Step(o);
				return true;
			});
	}

	Summary ws = Summarise(weftSamples), bs = Summarise(bulletSamples);
	// Constraint projections per frame: constraints x iterations x substeps.
	double weftProj = (double)weft.info.constraintCount * o.iterations * o.substeps;
	double bulletProj = (double)(bullet.structuralLinks + bullet.bendingLinks) * o.iterations * o.substeps;
	Shape wsh = Measure(weft.Positions(), o), bsh = Measure(bullet.Positions(), o);
	wfWarnings warn = wfWorld_GetWarnings(weft.world);
	int bulletVersion = btGetVersion();

	std::printf("weft-peer-bullet: %dx%d cloth, %.1f x %.1f m, %g kg per particle, top corners pinned, no colliders\n", o.cols, o.rows,
		(double)kWidth, (double)kHeight, (double)kParticleMass);
	std::printf("frame 1/60 s = %d substeps x %d iteration%s; %d warm-up + %d timed frames each, alternating blocks of %d\n", o.substeps,
		o.iterations, o.iterations == 1 ? "" : "s", o.warmup, o.frames, o.block);
	std::printf("weft   %d.%d.%d xpbd, cpu, %d thread%s: %d constraints (stretch %d, shear %d, bend %d), %d colours\n", WF_VERSION_MAJOR,
		WF_VERSION_MINOR, WF_VERSION_PATCH, o.threads, o.threads == 1 ? "" : "s", weft.info.constraintCount, weft.info.familyCount[0],
		weft.info.familyCount[1], weft.info.familyCount[2], weft.info.colorCount);
	std::printf("bullet %d.%02d soft body, piterations %d: %d links (patch %d, bending distance 2: %d)\n", bulletVersion / 100,
		bulletVersion % 100, o.iterations, bullet.structuralLinks + bullet.bendingLinks, bullet.structuralLinks, bullet.bendingLinks);
	std::printf("\n");
	std::printf("| library | median ms/frame | p90 ms/frame | min ms/frame | CPU ms/frame (median) | ns per projection (median) |\n");
	std::printf("| --- | --- | --- | --- | --- | --- |\n");
	std::printf("| weft xpbd cpu | %.3f | %.3f | %.3f | %.3f | %.2f |\n", ws.median, ws.p90, ws.min, ws.cpuMedian,
		1e6 * ws.median / weftProj);
	std::printf("| bullet soft body | %.3f | %.3f | %.3f | %.3f | %.2f |\n", bs.median, bs.p90, bs.min, bs.cpuMedian,
		1e6 * bs.median / bulletProj);
	std::printf("\nratio bullet median / weft median: %.1fx (CPU time: %.1fx, min: %.1fx, per projection: %.1fx)\n", bs.median / ws.median,
		bs.cpuMedian / ws.cpuMedian, bs.min / ws.min, (bs.median / bulletProj) / (ws.median / weftProj));
	std::printf("sanity after %d frames: centre sag weft %.3f m, bullet %.3f m; lowest point weft %.3f m, bullet %.3f m\n",
		o.warmup + o.frames, (double)wsh.centreSag, (double)bsh.centreSag, (double)wsh.lowest, (double)bsh.lowest);
	std::printf("        bullet substeps per frame %.3f (asked %d); weft warnings: non-finite %lld, unstable %lld\n",
		bullet.framesStepped ? (double)bullet.substepsTaken / (double)bullet.framesStepped : 0.0, o.substeps, (long long)warn.nonFinite,
		(long long)warn.unstable);
	return 0;
}
