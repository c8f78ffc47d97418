a{{/* line1
line2 */}}b