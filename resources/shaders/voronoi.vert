#version 330 core
// One triangle covering the viewport; passes each pixel's world position on.
uniform vec2 u_centre;
uniform vec2 u_scale;
out vec2 v_world;
void main() {
    vec2 corner = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    v_world = corner / u_scale + u_centre;
    gl_Position = vec4(corner, 0.0, 1.0);
}
