#version 330 core
// Data points: round dots once they are big enough to show a shape.
in vec4 v_colour;
uniform bool u_round;
out vec4 frag_colour;
void main() {
    if (u_round) {
        vec2 offset = gl_PointCoord * 2.0 - 1.0;
        if (dot(offset, offset) > 1.0) discard;
    }
    frag_colour = v_colour;
}
