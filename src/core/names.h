// Every enum's names, written once: the public name functions (wfSolverName, ...), the validators'
// "one of ..." messages and the scene loader's keys all come from these lists. Internal.
#ifndef WEFT_NAMES_H
#define WEFT_NAMES_H

#include "weft/weft.h"

// X(value, "name") in value order.
// clang-format off
#define WF_SOLVER_NAMES(X) X(WF_SOLVER_XPBD, "xpbd") X(WF_SOLVER_JACOBI, "jacobi") X(WF_SOLVER_SPRINGS, "springs")
#define WF_BACKEND_NAMES(X) X(WF_BACKEND_AUTO, "auto") X(WF_BACKEND_CPU, "cpu") X(WF_BACKEND_VULKAN, "vulkan")
#define WF_PIN_NAMES(X) \
	X(WF_PIN_NONE, "none") X(WF_PIN_TOP_CORNERS, "top-corners") X(WF_PIN_TOP_ROW, "top-row") X(WF_PIN_CORNERS, "corners") \
	X(WF_PIN_LIST, "list")
#define WF_ORIENTATION_NAMES(X) X(WF_ORIENT_HORIZONTAL, "horizontal") X(WF_ORIENT_VERTICAL, "vertical")
#define WF_WIND_NAMES(X) X(WF_WIND_NONE, "none") X(WF_WIND_GUST, "gust") X(WF_WIND_WAVE, "wave")
#define WF_RESPONSE_NAMES(X) X(WF_CONTACT_FRICTION, "friction") X(WF_CONTACT_STOP, "stop")
#define WF_JACOBI_WEIGHT_NAMES(X) X(WF_JACOBI_SYMMETRIC, "symmetric") X(WF_JACOBI_DEGREE, "degree")
#define WF_BAD_FRAME_NAMES(X) X(WF_BAD_FRAME_KEEP, "keep") X(WF_BAD_FRAME_RESET, "reset")
#define WF_ORDER_NAMES(X) X(WF_ORDER_AUTO, "auto") X(WF_ORDER_COLORS, "colors") X(WF_ORDER_TILES, "tiles")
#define WF_FUSED_PATH_NAMES(X) X(WF_FUSED_AUTO, "auto") X(WF_FUSED_NEVER, "never") X(WF_FUSED_ALWAYS, "always")
#define WF_VELOCITY_NAMES(X) X(WF_VELOCITY_MOVES, "moves") X(WF_VELOCITY_POSITIONS, "positions")
#define WF_COLLIDER_NAMES(X) \
	X(WF_COLLIDER_SPHERE, "sphere") X(WF_COLLIDER_CAPSULE, "capsule") X(WF_COLLIDER_BOX, "box") X(WF_COLLIDER_PLANE, "plane") X(WF_COLLIDER_MESH, "mesh")
#define WF_TETHER_NAMES(X) X(WF_TETHER_NONE, "none") X(WF_TETHER_EUCLIDEAN, "euclidean") X(WF_TETHER_GEODESIC, "geodesic")
#define WF_INTERPOLATION_NAMES(X) X(WF_INTERPOLATE_LINEAR, "linear") X(WF_INTERPOLATE_SMOOTHSTEP, "smoothstep")
#define WF_STAGE_NAMES(X) \
	X(WF_STAGE_PREPARE, "prepare") X(WF_STAGE_PREDICT, "predict") X(WF_STAGE_SOLVE, "solve") X(WF_STAGE_FINISH, "finish") \
	X(WF_STAGE_NORMALS, "normals") X(WF_STAGE_FUSED, "fused")
// clang-format on

// One enum's names: names[value], count values, and "a, b, c" for messages.
typedef struct wfEnumTable {
	const char* const* names;
	int count;
	const char* list;
} wfEnumTable;

// The number of values of a list, as a constant expression.
#define WF_COUNT_ENTRY(value, name) +1
#define WF_ENUM_COUNT(LIST) (0 LIST(WF_COUNT_ENTRY))
#define WF_SOLVER_COUNT WF_ENUM_COUNT(WF_SOLVER_NAMES)

extern const wfEnumTable wfSolverTable, wfBackendTable, wfPinTable, wfOrientationTable, wfWindTable, wfResponseTable, wfJacobiWeightTable,
	wfBadFrameTable, wfFusedPathTable, wfVelocityTable, wfOrderTable, wfStageTable, wfColliderTable, wfTetherTable, wfInterpolationTable;

// table.names as arrays, for constant initialisers (the def field tables of defs.c).
extern const char* const wfSolverTableNames[];
extern const char* const wfBackendTableNames[];
extern const char* const wfPinTableNames[];
extern const char* const wfOrientationTableNames[];
extern const char* const wfWindTableNames[];
extern const char* const wfResponseTableNames[];
extern const char* const wfJacobiWeightTableNames[];
extern const char* const wfBadFrameTableNames[];
extern const char* const wfFusedPathTableNames[];
extern const char* const wfVelocityTableNames[];
extern const char* const wfOrderTableNames[];
extern const char* const wfStageTableNames[];
extern const char* const wfColliderTableNames[];
extern const char* const wfTetherTableNames[];
extern const char* const wfInterpolationTableNames[];

const char* wfEnumName(const wfEnumTable* table, int value);               // "?" out of range
bool wfEnumFromName(const wfEnumTable* table, const char* name, int* out); // false for an unknown name

#endif
