// @ts-check
// The sample textbook: a plain Docusaurus 3 classic site with the book chat plugin added by one
// line in `plugins` (see ../docusaurus-plugin/README.md for every option).
const {themes: prismThemes} = require('prism-react-renderer');

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Physical AI & Humanoid Robotics',
  tagline: 'From ROS 2 nodes to vision-language-action models: build the software of an autonomous humanoid in simulation',
  favicon: 'img/favicon.svg',
  url: 'https://example.invalid',
  // BOOK_BASE_URL / BOOK_TRAILING_SLASH let the tests build the same book under another base URL.
  baseUrl: process.env.BOOK_BASE_URL || '/',
  trailingSlash:
    process.env.BOOK_TRAILING_SLASH === undefined ? undefined : process.env.BOOK_TRAILING_SLASH === 'true',
  onBrokenLinks: 'throw',
  markdown: {hooks: {onBrokenMarkdownLinks: 'throw'}},
  i18n: {defaultLocale: 'en', locales: ['en']},

  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          routeBasePath: 'docs',
          sidebarPath: require.resolve('./sidebars.js'),
        },
        blog: false,
        theme: {customCss: require.resolve('./src/css/custom.css')},
      }),
    ],
  ],

  plugins: [
    [
      // The installed package, exactly as an author adds it (scripts/build-site.sh installs the
      // tarballs of scripts/pack.sh into www/node_modules).
      'docusaurus-plugin-book-chat',
      {
        // The demo serves the book and the proxy from one origin (scripts/demo.sh), so the proxy
        // is at this site's root. `null` gives extractive answers with no proxy at all.
        proxyUrl: process.env.BOOK_CHAT_PROXY_URL === undefined ? '/' : process.env.BOOK_CHAT_PROXY_URL || null,
      },
    ],
  ],

  themeConfig:
    /** @type {import('@docusaurus/preset-classic').ThemeConfig} */
    ({
      colorMode: {defaultMode: 'light', respectPrefersColorScheme: true},
      navbar: {
        title: 'Physical AI & Humanoid Robotics',
        logo: {alt: 'Book logo', src: 'img/logo.svg'},
        items: [
          {type: 'docSidebar', sidebarId: 'book', position: 'left', label: 'Book'},
        ],
      },
      footer: {
        style: 'dark',
        links: [
          {
            title: 'Modules',
            items: [
              {label: 'Introduction', to: '/docs/intro'},
              {label: 'ROS 2', to: '/docs/category/module-1-ros-2--the-robotic-nervous-system'},
            ],
          },
        ],
        copyright: 'Physical AI & Humanoid Robotics — a sample textbook for the book chat project.',
      },
      prism: {
        theme: prismThemes.github,
        darkTheme: prismThemes.dracula,
        additionalLanguages: ['bash', 'python', 'yaml', 'json', 'toml', 'cpp'],
      },
    }),
};

module.exports = config;
