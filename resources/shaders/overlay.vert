#version 330 core
// One triangle covering the viewport, with texture coordinates for the overlay image.
out vec2 v_uv;
void main() {
    vec2 corner = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    v_uv = vec2((corner.x + 1.0) * 0.5, 1.0 - (corner.y + 1.0) * 0.5);  // image rows run downwards
    gl_Position = vec4(corner, 0.0, 1.0);
}
