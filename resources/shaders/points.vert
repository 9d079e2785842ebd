#version 330 core
// Points, trails and centroid markers: world position → clip space.
layout(location = 0) in vec2 position;
layout(location = 1) in vec4 colour;
uniform vec2 u_centre;      // world position at the middle of the view
uniform vec2 u_scale;       // world units → normalised device coordinates
uniform float u_point_size; // framebuffer pixels
out vec4 v_colour;
void main() {
    gl_Position = vec4((position - u_centre) * u_scale, 0.0, 1.0);
    gl_PointSize = u_point_size;
    v_colour = colour;
}
