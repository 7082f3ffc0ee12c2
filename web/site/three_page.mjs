// The parts of three.js that the page's own code (app.mjs) and OrbitControls use, from three's
// source modules: the bundler resolves "three" to this file for them (web/build_site.mjs), so
// the page does not reach three.js' renderer through the library's index; gl_draw.mjs (WebGL2,
// loaded on its own) gets the whole of three.js.
export { PerspectiveCamera } from "three/src/cameras/PerspectiveCamera.js";
export { BufferAttribute } from "three/src/core/BufferAttribute.js";
export { Raycaster } from "three/src/core/Raycaster.js";
export { Controls } from "three/src/extras/Controls.js";
export { Box3 } from "three/src/math/Box3.js";
export { MathUtils } from "three/src/math/MathUtils.js";
export { Plane } from "three/src/math/Plane.js";
export { Quaternion } from "three/src/math/Quaternion.js";
export { Ray } from "three/src/math/Ray.js";
export { Spherical } from "three/src/math/Spherical.js";
export { Vector2 } from "three/src/math/Vector2.js";
export { Vector3 } from "three/src/math/Vector3.js";
export { MOUSE, TOUCH } from "three/src/constants.js";
