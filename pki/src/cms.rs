//! GM/T 0010 CMS (work in progress).
